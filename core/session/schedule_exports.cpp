#include "core/session/schedule_exports.h"

#include "core/rewrite/diff_export.h"
#include "core/rewrite/triton_cache.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace sassx {

namespace {

// A variant JSON applied to `kernel`, as the other side of a diff.
Result<DiffSide> variantSide(const KernelWorkspace& kernel, const std::string& path, const std::string& label)
{
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return makeError(path + " is not valid JSON");
    auto v = Variant::fromJson(j);
    if (!v) return v.error();
    if (!v->kernel.empty() && v->kernel != kernel.name())
        return makeError("variant " + path + " is for kernel " + v->kernel + ", not " + kernel.name());
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
    auto b = pathB.ends_with(".json") ? variantSide(kernel, pathB, labelB)
                                      : inputSide(kernel, labelA, pathB, labelB, options);
    if (!b) return b.error();
    return diffSchedules(DiffSide::fromListing(kernel.analysis().listing, labelA), *b, kernel.name());
}

std::string renderDiff(const ScheduleDiff& diff, DiffFormat format, int context)
{
    switch (format) {
    case DiffFormat::Json:
        return diffToJson(diff).dump(2) + "\n";
    case DiffFormat::Html:
        return diffToHtml(diff);
    case DiffFormat::Text:
        break;
    }
    return diffToText(diff, {.context = context});
}

Result<TritonWriteBack> writeBackToTriton(const std::string& entry, const std::vector<uint8_t>& tuned,
                                          const std::string& kernel)
{
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
