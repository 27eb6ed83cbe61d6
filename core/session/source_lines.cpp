#include "core/session/source_lines.h"

#include "core/session/workspace.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace sassx {

std::vector<std::string> sourceSearchDirs(const std::string& inputPath)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path dir = fs::path(inputPath);
    if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
    if (dir.empty()) dir = ".";
    std::vector<std::string> dirs{dir.string()};
    const fs::path parent = fs::absolute(dir, ec).parent_path();
    if (!ec && !parent.empty() && parent != fs::absolute(dir, ec)) dirs.push_back(parent.string());
    return dirs;
}

Result<SourceMap> kernelSourceMap(const KernelWorkspace& k)
{
    const Kernel* kernel = k.cubin().findKernel(k.name());
    if (!kernel) return makeError("the cubin has no kernel " + k.name());
    auto map = buildSourceMap(k.cubin(), *kernel);
    if (!map) return map;
    loadSourceTexts(*map, sourceSearchDirs(k.input().path));
    return map;
}

std::vector<SourceLineSummary> summarizeSourceLines(const SourceMap& map, const KernelStalls* stalls,
                                                    const ScheduleDiff* diff)
{
    const size_t n = map.byPosition.size();
    std::vector<uint8_t> moved(n, 0), control(n, 0);
    if (diff)
        for (const DiffEntry& e : diff->entries)
            if (e.aPos < n) {
                moved[e.aPos] = e.moved;
                control[e.aPos] = !e.control.empty();
            }
    // (file, line), with the unmapped instructions under (INT_MAX, 0) so they sort last.
    std::map<std::pair<int, uint32_t>, SourceLineSummary> byLine;
    for (uint32_t i = 0; i < n; ++i) {
        const SourceLocation& at = map.byPosition[i];
        const bool mapped = at.hasSource();
        SourceLineSummary& s = byLine[{mapped ? at.file : INT32_MAX, mapped ? at.line : 0}];
        s.file = mapped ? at.file : -1;
        s.line = mapped ? at.line : 0;
        const InstrId id(i); // the source map follows the original listing
        s.instructions.push_back(id);
        if (stalls && id < stalls->byOriginal.endIndex()) s.samples += stalls->byOriginal[id].samples;
        s.moved += moved[i];
        s.controlChanged += control[i];
        s.changed += moved[i] || control[i];
    }
    std::vector<SourceLineSummary> out;
    out.reserve(byLine.size());
    for (auto& [key, s] : byLine)
        out.push_back(std::move(s));
    return out;
}

Result<ScheduleDiff> diffAgainstOriginal(const KernelAnalysis& analysis, const Schedule& variant)
{
    return diffSchedules(DiffSide::fromSchedule(analysis, Schedule::identity(analysis), "original"),
                         DiffSide::fromSchedule(analysis, variant, "variant"), analysis.listing.kernel);
}

int sourceLineOf(const std::vector<SourceLineSummary>& lines, InstrId original)
{
    for (size_t k = 0; k < lines.size(); ++k)
        if (std::binary_search(lines[k].instructions.begin(), lines[k].instructions.end(), original))
            return int(k);
    return -1;
}

} // namespace sassx
