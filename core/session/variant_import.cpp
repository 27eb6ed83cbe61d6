#include "core/session/variant_import.h"

#include "core/rewrite/control_rules.h"
#include "core/rewrite/edit_compaction.h"
#include "core/rewrite/schedule_recovery.h"
#include "core/session/schedule_exports.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace sassx {

namespace {

std::string describeDifference(const KernelAnalysis& a, const DiffEntry& e)
{
    // Side A is the original, so its positions are original instructions.
    std::string s = instructionAt(a, InstrId(e.aPos));
    if (e.moved) {
        const bool up = e.bPos < e.aPos;
        s += " moved " + std::to_string(up ? e.aPos - e.bPos : e.bPos - e.aPos) + (up ? " up" : " down");
    }
    for (size_t k = 0; k < e.control.size(); ++k)
        s += (k == 0 ? (e.moved ? "; " : " ") : ", ") + e.control[k].text();
    return s;
}

void addOnce(std::vector<std::string>& list, const std::string& s)
{
    if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
}

std::string fileName(const std::string& path)
{
    return std::filesystem::path(path).filename().string();
}

// The copy of `kernel` in another input: the same symbol for the same architecture.
Result<Schedule> cubinSchedule(const KernelWorkspace& kernel, const std::string& path,
                               const WorkspaceOptions& options)
{
    auto ws = Workspace::open(path, options);
    if (!ws) return ws.error();
    const std::string arch = kernel.cubin().archName();
    const KernelEntry* entry = nullptr;
    std::string others;
    for (const KernelEntry& e : (*ws)->kernels()) {
        if (e.name == kernel.name() && (!entry || (e.arch == arch && entry->arch != arch))) entry = &e;
        if (e.name != kernel.name() && others.size() < 200) others += (others.empty() ? "" : ", ") + e.name;
    }
    if (!entry)
        return makeError("it has no kernel " + kernel.name() +
                         (others.empty() ? std::string() : " (it holds " + others + ")"));
    if (entry->arch != arch)
        return makeError("its " + kernel.name() + " is built for " + entry->arch + ", the open one for " +
                         arch);
    const Cubin& cubin = (*ws)->input().cubins[entry->cubin].cubin;
    const Kernel* kb = cubin.findKernel(kernel.name());
    const Kernel* ka = kernel.cubin().findKernel(kernel.name());
    if (!kb) return makeError("it has no kernel " + kernel.name());
    if (ka && ka->codeSize != kb->codeSize)
        return makeError("its " + kernel.name() + " is " + std::to_string(kb->codeSize) +
                         " bytes, the open one " + std::to_string(ka->codeSize) +
                         ": not a reordering of the same instructions");
    return recoverScheduleExplained(kernel.analysis(), cubin, *kb);
}

} // namespace

size_t CheckerVerdict::refusedCount() const
{
    return size_t(std::count_if(differences.begin(), differences.end(),
                                [](const DifferenceVerdict& d) { return !d.refusals.empty(); }));
}

std::vector<std::string> CheckerVerdict::refusalLines() const
{
    std::vector<std::string> lines;
    if (!unjudged.empty()) lines.push_back("not judged: " + unjudged);
    for (const DifferenceVerdict& d : differences)
        for (const std::string& why : d.refusals)
            lines.push_back(d.what + ": refused: " + why);
    for (const std::string& why : otherRefusals)
        lines.push_back("the schedule as a whole: refused: " + why);
    return lines;
}

std::string CheckerVerdict::text() const
{
    if (!unjudged.empty()) return "checker: not judged: " + unjudged + "\n";
    if (differences.empty() && otherRefusals.empty()) return "checker: no differences to judge\n";
    std::string s = "checker: " + std::to_string(differences.size() - refusedCount()) + " of " +
                    std::to_string(differences.size()) + " differences legal";
    if (legal()) return s + "\n";
    s += "; refused:\n";
    for (const std::string& line : refusalLines())
        s += "  " + line + "\n";
    return s;
}

nlohmann::json CheckerVerdict::toJson() const
{
    nlohmann::json refused = nlohmann::json::array();
    for (const DifferenceVerdict& d : differences)
        if (!d.refusals.empty())
            refused.push_back({{"instruction", d.instruction}, {"what", d.what}, {"reasons", d.refusals}});
    nlohmann::json j{{"legal", legal()},
                     {"differences", differences.size()},
                     {"legal_differences", differences.size() - refusedCount()},
                     {"refused", refused},
                     {"other_refusals", otherRefusals}};
    if (!unjudged.empty()) j["unjudged"] = unjudged;
    return j;
}

CheckerVerdict judgeDifferences(const KernelWorkspace& kernel, const Schedule& schedule)
{
    CheckerVerdict verdict;
    const KernelAnalysis& a = kernel.analysis();
    const size_t n = a.listing.instructions.size();
    auto diff = diffFromOriginal(kernel, schedule, "variant");
    if (!diff) {
        verdict.unjudged = diff.message();
        return verdict;
    }
    IndexVector<InstrId, int> differenceOf(n, -1);
    for (const DiffEntry& e : diff->entries) {
        if (!e.moved && e.control.empty()) continue;
        const InstrId original(e.aPos); // side A is the original
        differenceOf[original] = int(verdict.differences.size());
        verdict.differences.push_back({original, describeDifference(a, e), {}});
    }
    const LegalityReport report = kernel.checker().check(schedule);
    const IndexVector<InstrId, Position> pos = schedule.positionOf();
    const InstrId end = differenceOf.endIndex();
    for (const Hazard& h : report.hazards) {
        std::vector<int> hit;
        auto take = [&](InstrId i) {
            if (i < end && differenceOf[i] >= 0 &&
                std::find(hit.begin(), hit.end(), differenceOf[i]) == hit.end())
                hit.push_back(differenceOf[i]);
        };
        take(h.first);
        take(h.second);
        if (hit.empty() && h.first < end && h.second < end) {
            // Between the two in either order: what changed their distance.
            for (InstrId i = std::min(h.first, h.second); i <= std::max(h.first, h.second); ++i)
                take(i);
            for (Position p = std::min(pos[h.first], pos[h.second]);
                 p <= std::max(pos[h.first], pos[h.second]); ++p)
                take(schedule.order[p]);
        }
        if (hit.empty()) addOnce(verdict.otherRefusals, h.message);
        for (int d : hit)
            addOnce(verdict.differences[size_t(d)].refusals, h.message);
    }
    return verdict;
}

Result<Variant> readVariantFile(const KernelWorkspace& kernel, const std::string& path)
{
    std::ifstream in(path);
    if (!in) return makeError("cannot read " + path);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return makeError(path + " is not valid JSON");
    auto v = Variant::fromJson(j);
    if (!v) return v.error();
    if (!v->kernel.empty() && v->kernel != kernel.name())
        return makeError("variant " + path + " is for kernel " + v->kernel + ", not " + kernel.name());
    return v;
}

Result<Schedule> scheduleOfInput(const KernelWorkspace& kernel, const std::string& path,
                                 const WorkspaceOptions& options)
{
    if (path.ends_with(".json")) {
        auto v = readVariantFile(kernel, path);
        if (!v) return v.error();
        return kernel.schedule(v->edits);
    }
    auto s = cubinSchedule(kernel, path, options);
    if (!s) return makeError(fileName(path) + ": " + s.message());
    return s;
}

CheckerVerdict judgeInput(const KernelWorkspace& kernel, const std::string& path,
                          const WorkspaceOptions& options)
{
    auto schedule = scheduleOfInput(kernel, path, options);
    if (!schedule) {
        CheckerVerdict verdict;
        verdict.unjudged = schedule.message();
        return verdict;
    }
    return judgeDifferences(kernel, *schedule);
}

Result<ImportedSchedule> importSchedule(const KernelWorkspace& kernel, const std::string& path,
                                        const WorkspaceOptions& options)
{
    auto schedule = scheduleOfInput(kernel, path, options);
    if (!schedule) return schedule.error();
    const KernelAnalysis& a = kernel.analysis();
    auto edits = compactEdits(a, *schedule, [&kernel](Schedule& s) { kernel.checker().fixReuse(s); });
    if (!edits) {
        // Only a field no edit sets can make compaction fail on a permutation within blocks.
        for (InstrId i : schedule->instructions()) {
            const Control& have = a.listing.instructions[i.value()].control;
            const Control& want = schedule->control[i];
            if (have.wbar != want.wbar || have.rbar != want.rbar || have.wait != want.wait)
                return makeError(fileName(path) + ": " + instructionAt(a, i) +
                                 " has other scoreboard fields, which a variant cannot hold (its edits are "
                                 "moves, stalls, yield and reuse flags); sassx-cli diff shows the difference "
                                 "and the checker's verdict");
        }
        return makeError(fileName(path) + ": its schedule cannot be written as edits of the original");
    }
    ImportedSchedule out;
    out.label = fileName(path);
    out.edits = std::move(*edits);
    out.verdict = judgeDifferences(kernel, *schedule);
    out.schedule = std::move(*schedule);
    return out;
}

} // namespace sassx
