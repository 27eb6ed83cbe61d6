#include "core/cubin/source_map.h"

#include "core/common/demangle.h"
#include "core/common/read_file.h"
#include "core/cubin/line_program.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

namespace sassx {

namespace {

// The rows of the kernel's sequences, ordered by address (stable: of rows at one address the last is
// the one in effect, as for every consumer of a line table), each with the end of its sequence.
struct KernelRows
{
    const LineSequence* sequence = nullptr;
    std::vector<std::pair<const LineRow*, uint64_t>> rows; // row, address where it stops applying
};

std::vector<KernelRows> kernelRows(const LineTable& table, const Kernel& kernel)
{
    std::vector<KernelRows> out;
    for (const LineSequence& s : table.sequences) {
        if (s.textSection != kernel.textSection || s.rows.empty()) continue;
        std::vector<const LineRow*> rows;
        for (const LineRow& r : s.rows)
            rows.push_back(&r);
        std::stable_sort(rows.begin(), rows.end(),
                         [](const LineRow* a, const LineRow* b) { return a->address < b->address; });
        KernelRows k{&s, {}};
        for (size_t i = 0; i < rows.size(); ++i) {
            const uint64_t end = i + 1 < rows.size() ? rows[i + 1]->address : s.endAddress;
            k.rows.emplace_back(rows[i], std::max(end, rows[i]->address));
        }
        out.push_back(std::move(k));
    }
    return out;
}

// Calls f(position, row) for every instruction position [0, n) a row covers; later rows overwrite.
template <class F> void forEachCovered(const KernelRows& k, size_t n, F&& f)
{
    for (const auto& [row, end] : k.rows) {
        const uint64_t first = (row->address + 15) / 16;
        const uint64_t last = std::min<uint64_t>((end + 15) / 16, n);
        for (uint64_t p = first; p < last; ++p)
            f(size_t(p), *row);
    }
}

// The NUL-terminated string at `offset` of .debug_str; empty when there is none.
std::string debugString(const Cubin& cubin, uint64_t offset)
{
    const int sec = cubin.findSection(".debug_str");
    if (sec < 0) return {};
    const auto data = cubin.sectionData(sec);
    if (offset >= data.size()) return {};
    const auto* begin = reinterpret_cast<const char*>(data.data() + offset);
    const void* nul = std::memchr(begin, 0, data.size() - offset);
    return nul ? std::string(begin, static_cast<const char*>(nul)) : std::string(begin, data.size() - offset);
}

// Lines of the embedded PTX: ptxas separates them with NULs; newlines are accepted as well.
std::vector<std::string> ptxTextLines(std::span<const uint8_t> data)
{
    std::vector<std::string> lines;
    const bool newlines = std::find(data.begin(), data.end(), uint8_t('\n')) != data.end();
    const uint8_t separator = newlines ? '\n' : 0;
    std::string line;
    for (uint8_t b : data) {
        if (b == separator) {
            lines.push_back(std::move(line));
            line.clear();
        } else if (b != 0 && b != '\r') {
            line.push_back(char(b));
        }
    }
    if (!line.empty()) lines.push_back(std::move(line));
    return lines;
}

std::string baseName(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

class SourceBuilder
{
public:
    SourceBuilder(const Cubin& cubin, SourceMap& map) : m_cubin(cubin), m_map(map) {}

    void addSource(const LineTable& table, const KernelRows& k)
    {
        const LineProgramHeader& h = table.units[k.sequence->unit];
        const std::vector<LineRow>& seqRows = k.sequence->rows;
        forEachCovered(k, m_map.byPosition.size(), [&](size_t p, const LineRow& row) {
            SourceLocation& at = m_map.byPosition[p];
            at.file = fileIndex(h, k.sequence->unit, row.file);
            at.line = row.line > 0 && row.line <= INT32_MAX ? uint32_t(row.line) : 0;
            at.column = uint32_t(std::min<uint64_t>(row.column, UINT32_MAX));
            at.function = -1;
            at.callFile = -1;
            at.callLine = 0;
            // The call site is a row of the same sequence, numbered from 1 (line_program.h).
            if (row.context > 0 && row.context <= seqRows.size()) {
                const LineRow& call = seqRows[row.context - 1];
                at.function = functionIndex(row.functionName);
                at.callFile = fileIndex(h, k.sequence->unit, call.file);
                at.callLine = call.line > 0 && call.line <= INT32_MAX ? uint32_t(call.line) : 0;
            }
            if (at.line > 0) m_map.hasSource = true;
        });
        if (!h.fileTableProblem.empty()) note(table.section + ": " + h.fileTableProblem);
    }

    void addPtx(const KernelRows& k)
    {
        forEachCovered(k, m_map.byPosition.size(), [&](size_t p, const LineRow& row) {
            m_map.byPosition[p].ptxLine = row.line > 0 && row.line <= INT32_MAX ? uint32_t(row.line) : 0;
            if (row.line > 0) m_map.hasPtx = true;
        });
    }

    void note(const std::string& s)
    {
        if (std::find(m_map.notes.begin(), m_map.notes.end(), s) == m_map.notes.end())
            m_map.notes.push_back(s);
    }

private:
    int fileIndex(const LineProgramHeader& h, size_t unit, uint64_t file)
    {
        const auto key = std::make_pair(unit, file);
        if (auto it = m_files.find(key); it != m_files.end()) return it->second;
        std::string path = h.filePath(file);
        if (path.empty()) path = "file " + std::to_string(file);
        auto same = std::find_if(m_map.files.begin(), m_map.files.end(),
                                 [&](const SourceFile& f) { return f.path == path; });
        int index = int(same - m_map.files.begin());
        if (same == m_map.files.end()) m_map.files.push_back(SourceFile{path, baseName(path), {}, {}});
        return m_files[key] = index;
    }

    int functionIndex(uint64_t strOffset)
    {
        if (auto it = m_functions.find(strOffset); it != m_functions.end()) return it->second;
        std::string name = demangle(debugString(m_cubin, strOffset));
        if (name.empty()) name = "(inlined function)";
        m_map.functions.push_back(std::move(name));
        return m_functions[strOffset] = int(m_map.functions.size()) - 1;
    }

    const Cubin& m_cubin;
    SourceMap& m_map;
    std::map<std::pair<size_t, uint64_t>, int> m_files;
    std::map<uint64_t, int> m_functions;
};

} // namespace

std::string_view SourceMap::sourceText(const SourceLocation& at) const
{
    if (at.file < 0 || size_t(at.file) >= files.size() || at.line == 0) return {};
    const auto& lines = files[size_t(at.file)].lines;
    return at.line <= lines.size() ? std::string_view(lines[at.line - 1]) : std::string_view();
}

std::string_view SourceMap::ptxText(uint32_t ptxLine) const
{
    return ptxLine > 0 && ptxLine <= ptxLines.size() ? std::string_view(ptxLines[ptxLine - 1])
                                                     : std::string_view();
}

std::string SourceMap::describe(const SourceLocation& at, bool column) const
{
    if (!at.hasSource() || size_t(at.file) >= files.size()) return {};
    std::string s = files[size_t(at.file)].name + ":" + std::to_string(at.line);
    if (column && at.column) s += ":" + std::to_string(at.column);
    return s;
}

std::string SourceMap::describeCallSite(const SourceLocation& at) const
{
    if (at.callFile < 0 || size_t(at.callFile) >= files.size()) return {};
    return files[size_t(at.callFile)].name + ":" + std::to_string(at.callLine);
}

Result<SourceMap> buildSourceMap(const Cubin& cubin, const Kernel& kernel)
{
    SourceMap map;
    map.byPosition.assign(size_t(kernel.codeSize / 16), SourceLocation{});
    SourceBuilder builder(cubin, map);
    const int source = cubin.findSection(".debug_line");
    const int ptx = cubin.findSection(".nv_debug_line_sass");
    if (source < 0 && ptx < 0) {
        map.notes.push_back("no line info: the cubin has neither .debug_line nor .nv_debug_line_sass "
                            "(compile with -lineinfo; Triton cubins carry it)");
        return map;
    }
    if (source >= 0) {
        auto table = decodeLineTable(cubin, source);
        if (!table) return table.error();
        for (const KernelRows& k : kernelRows(*table, kernel))
            builder.addSource(*table, k);
        if (!map.hasSource) builder.note(".debug_line has no rows for " + kernel.name);
    } else {
        builder.note("no .debug_line: no source lines (compile with -lineinfo)");
    }
    if (ptx >= 0) {
        auto table = decodeLineTable(cubin, ptx);
        if (!table) return table.error();
        for (const KernelRows& k : kernelRows(*table, kernel))
            builder.addPtx(k);
        if (const int text = cubin.findSection(".nv_debug_ptx_txt"); text >= 0)
            map.ptxLines = ptxTextLines(cubin.sectionData(text));
        else if (map.hasPtx)
            builder.note("no .nv_debug_ptx_txt: PTX line numbers without their text");
        if (!map.hasPtx) builder.note(".nv_debug_line_sass has no rows for " + kernel.name);
    } else {
        builder.note("no .nv_debug_line_sass: no PTX lines");
    }
    return map;
}

void loadSourceTexts(SourceMap& map, const std::vector<std::string>& searchDirs)
{
    for (SourceFile& f : map.files) {
        std::vector<std::string> candidates{f.path};
        for (const std::string& dir : searchDirs)
            if (!dir.empty()) candidates.push_back(dir + "/" + f.name);
        for (const std::string& path : candidates) {
            auto bytes = readRegularFile(path);
            if (!bytes) continue;
            f.foundAt = path;
            f.lines.clear();
            std::string line;
            for (uint8_t b : *bytes) {
                if (b == '\n') {
                    f.lines.push_back(std::move(line));
                    line.clear();
                } else if (b != '\r') {
                    line.push_back(char(b));
                }
            }
            if (!line.empty()) f.lines.push_back(std::move(line));
            break;
        }
    }
}

} // namespace sassx
