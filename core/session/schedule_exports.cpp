#include "core/session/schedule_exports.h"

#include "core/common/text_format.h"

#include "core/analysis/arch_model.h"
#include "core/rewrite/diff_export.h"
#include "core/rewrite/triton_cache.h"
#include "core/session/variant_import.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace sassx {

namespace {

// A variant JSON applied to `kernel`, as the other side of a diff.
Result<DiffSide> variantSide(const KernelWorkspace& kernel, const std::string& path, const std::string& label)
{
    auto v = readVariantFile(kernel, path);
    if (!v) return v.error();
    auto s = kernel.schedule(v->edits);
    if (!s) return s.error();
    return DiffSide::fromSchedule(kernel.analysis(), *s, v->name.empty() ? label : v->name);
}

// Another input's copy of `kernel`, as the other side of a diff.
Result<DiffSide> inputSide(const KernelWorkspace& kernel, const std::string& labelA, const std::string& path,
                           const std::string& label, const WorkspaceOptions& options)
{
    auto ws = Workspace::open(path, options);
    if (!ws) return ws.error();
    auto other = (*ws)->kernel(kernel.name());
    if (!other) return other.error();
    const KernelWorkspace& b = **other;
    const Kernel* ka = kernel.cubin().findKernel(kernel.name());
    const Kernel* kb = b.cubin().findKernel(b.name());
    if (ka && kb && ka->codeSize != kb->codeSize)
        return makeError(kernel.name() + " is " + std::to_string(ka->codeSize) + " bytes in " + labelA +
                         " but " + std::to_string(kb->codeSize) + " in " + label +
                         ": not two schedules of one kernel");
    return DiffSide::fromListing(b.analysis().listing, label);
}

} // namespace

Result<ScheduleDiff> diffFromOriginal(const KernelWorkspace& kernel, const Schedule& schedule,
                                      const std::string& name)
{
    const KernelAnalysis& a = kernel.analysis();
    return diffSchedules(DiffSide::fromSchedule(a, Schedule::identity(a), "original"),
                         DiffSide::fromSchedule(a, schedule, name), kernel.name());
}

Result<ScheduleDiff> diffInputs(const KernelWorkspace& kernel, const std::string& labelA,
                                const std::string& pathB, const WorkspaceOptions& options)
{
    const std::string labelB = std::filesystem::path(pathB).filename().string();
    Result<DiffSide> b = makeError("");
    if (pathB.ends_with(".json")) {
        b = variantSide(kernel, pathB, labelB);
    } else if (auto recovered = scheduleOfInput(kernel, pathB, options)) {
        // From the words themselves: nvdisasm refuses some control bits that the GPU runs.
        b = DiffSide::fromSchedule(kernel.analysis(), *recovered, labelB);
    } else {
        // Not a permutation within blocks: B's own listing may still be one across blocks; when it is
        // not either, the recovery's sentence names the first word that differs.
        b = inputSide(kernel, labelA, pathB, labelB, options);
        auto diff =
            b ? diffSchedules(DiffSide::fromListing(kernel.analysis().listing, labelA), *b, kernel.name())
              : Result<ScheduleDiff>(b.error());
        if (!diff) return recovered.error();
        return diff;
    }
    if (!b) return b.error();
    return diffSchedules(DiffSide::fromListing(kernel.analysis().listing, labelA), *b, kernel.name());
}

namespace {

// The verdict as a note at the top of the page's body.
std::string withCheckerNote(std::string html, const CheckerVerdict& checker)
{
    const size_t body = html.find("<body");
    const size_t at = body == std::string::npos ? std::string::npos : html.find('>', body);
    std::string note = "<div class=\"checker-note\" style=\"margin:8px 0;padding:6px 10px;border:1px solid " +
                       std::string(checker.legal() ? "#7a7" : "#c77") + "\"><pre style=\"margin:0\">" +
                       htmlEscape(checker.text()) + "</pre></div>\n";
    if (at == std::string::npos) return html + note;
    return html.insert(at + 1, "\n" + note);
}

} // namespace

std::string renderDiff(const ScheduleDiff& diff, DiffFormat format, int context,
                       const CheckerVerdict* checker)
{
    switch (format) {
    case DiffFormat::Json: {
        nlohmann::json j = diffToJson(diff);
        if (checker) j["checker"] = checker->toJson();
        return j.dump(2) + "\n";
    }
    case DiffFormat::Html:
        return checker ? withCheckerNote(diffToHtml(diff), *checker) : diffToHtml(diff);
    case DiffFormat::Text:
        break;
    }
    const std::string text = diffToText(diff, {.context = context});
    return checker ? text + "\n" + checker->text() : text;
}

Result<std::string> tritonEntryCubin(const std::string& entry)
{
    auto opened = openTritonEntry(entry);
    if (!opened) return opened.error();
    return opened->cubin.string();
}

Result<TritonWriteBack> writeBackToTriton(const std::string& entry, const std::vector<uint8_t>& tuned,
                                          const std::string& kernel)
{
    // A Blackwell cubin keeps its capmerc code beside .text: an edited one in the cache could run the
    // original under the tuned one's name (editRefusal, arch_model.h).
    if (auto parsed = Cubin::parse(tuned); parsed)
        if (const std::string why = editRefusal(*parsed); !why.empty()) return makeError(why);
    if (Status s = exportToTritonCache(entry, tuned, kernel); !s) return s.error();
    auto opened = openTritonEntry(entry);
    if (!opened) return opened.error();
    return TritonWriteBack{opened->cubin.string(), opened->backup.string()};
}

Status restoreTriton(const std::string& entry)
{
    return restoreTritonCache(entry);
}

} // namespace sassx
