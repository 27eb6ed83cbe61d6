#include "core/session/workspace.h"

#include "core/sass/nvdisasm.h"

#include "core/common/demangle.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/schedule_recovery.h"
#include "core/sass/listing.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace sassx {

namespace fs = std::filesystem;

Result<std::shared_ptr<const Workspace>> Workspace::open(const std::string& path, WorkspaceOptions options)
{
    LoadOptions load;
    load.arch = options.arch.empty() ? std::string(kDefaultArch) : options.arch;
    auto in = loadInput(path, load);
    if (!in) return in.error();
    std::shared_ptr<Workspace> ws(new Workspace);
    ws->m_input = std::make_shared<const LoadedInput>(std::move(*in));
    ws->m_options = std::move(options);
    ws->m_options.arch = load.arch;
    ws->listKernels();
    return std::shared_ptr<const Workspace>(std::move(ws));
}

void Workspace::listKernels()
{
    std::map<std::string, int> copies, perArch;
    for (size_t c = 0; c < m_input->cubins.size(); ++c) {
        const Cubin& cubin = m_input->cubins[c].cubin;
        for (const auto& k : cubin.kernels()) {
            KernelEntry e;
            e.name = k.name;
            e.demangled = demangle(k.name);
            e.arch = cubin.archName();
            e.sm = cubin.smVersion();
            e.cubin = c;
            e.instructions = k.codeSize / 16;
            ++copies[e.name];
            ++perArch[e.name + "@" + e.arch];
            m_kernels.push_back(std::move(e));
        }
    }
    for (KernelEntry& e : m_kernels) {
        if (copies[e.name] == 1)
            e.key = e.name;
        else if (perArch[e.name + "@" + e.arch] == 1)
            e.key = e.name + "@" + e.arch;
        else
            e.key = e.name + "@" + std::to_string(e.cubin);
    }
}

std::vector<std::string> Workspace::kernelNames() const
{
    std::vector<std::string> names;
    for (const KernelEntry& e : m_kernels)
        names.push_back(e.key);
    return names;
}

const KernelEntry* Workspace::findKernel(const std::string& key) const
{
    const KernelEntry* newest = nullptr;
    for (const KernelEntry& e : m_kernels) {
        if (e.key == key) return &e;
        // Newest arch wins; among equals the arch-specific "a" build, then the first.
        if (e.name == key &&
            (!newest || e.sm > newest->sm || (e.sm == newest->sm && e.arch.size() > newest->arch.size())))
            newest = &e;
    }
    return newest;
}

size_t Workspace::defaultKernel() const
{
    size_t best = 0;
    for (size_t i = 1; i < m_kernels.size(); ++i)
        if (m_kernels[i].sm > m_kernels[best].sm) best = i;
    return best;
}

int Workspace::cubinIndexOf(const std::string& kernel) const
{
    const KernelEntry* e = findKernel(kernel);
    return e ? int(e->cubin) : -1;
}

std::string Workspace::defaultLaunchSpecPath() const
{
    const fs::path input(m_input->path);
    const std::string stem = input.filename().string();
    const fs::path spec = input.parent_path() / (stem.substr(0, stem.find('.')) + ".launch.json");
    std::error_code ec;
    return fs::is_regular_file(spec, ec) ? spec.string() : std::string();
}

namespace {

// What the writer's limits mean for the user, said once per kernel: the checker turns every pinned
// instruction into a wall, which otherwise shows up only as "0 legal moves".
void describeLimits(const Cubin& cubin, const Kernel& kernel, const PatchOptions& options,
                    std::vector<std::string>& notices, std::string& immovable)
{
    const PatchLimits limits = patchLimits(cubin, kernel, options);
    if (!limits.refuseAll.empty()) {
        immovable = limits.refuseAll;
        notices.push_back("no instruction of " + kernel.name + " can move: " + limits.refuseAll);
        return;
    }
    if (!limits.pins.empty())
        notices.push_back(std::to_string(limits.pins.size()) + " instruction(s) of " + kernel.name +
                          " must keep their place: " + limits.pins.front().reason);
    if (!limits.fences.empty())
        notices.push_back(std::to_string(limits.fences.size()) + " boundar" +
                          (limits.fences.size() == 1 ? "y" : "ies") + " in " + kernel.name +
                          " nothing may cross: " + limits.fences.front().reason);
}

} // namespace

Result<std::shared_ptr<const KernelWorkspace>> Workspace::kernel(const std::string& name,
                                                                 const std::atomic_bool* stop) const
{
    const std::vector<std::string> names = kernelNames();
    if (names.empty()) return makeError(m_input->path + ": no kernels");
    std::string pick = name;
    if (pick.empty()) {
        // One kernel, or copies of one kernel for several architectures (the newest, as for a bare
        // symbol); otherwise the user picks.
        if (std::any_of(m_kernels.begin(), m_kernels.end(),
                        [&](const KernelEntry& e) { return e.name != m_kernels.front().name; })) {
            std::string list;
            for (const auto& n : names)
                list += (list.empty() ? "" : ", ") + n;
            return makeError(m_input->path + " has " + std::to_string(names.size()) +
                             " kernels; pick one with --kernel (" + list + ")");
        }
        pick = m_kernels.front().name;
    }
    const KernelEntry* entry = findKernel(pick);
    if (!entry) return makeError("no kernel named '" + pick + "' in " + m_input->path);
    const int c = int(entry->cubin);
    const std::string key = entry->key;
    pick = entry->name;
    const Cubin& cubin = m_input->cubins[size_t(c)].cubin;
    auto listing = disassembleKernel(cubin, pick);
    if (!listing) return listing.error();
    // An nvdisasm that skips instructions (seen with an older toolkit's on Triton and CUDA sm_90 code)
    // would leave the analysis blind to them: the checker would be unsound and the writer refuses every
    // edit. Refuse the kernel with the fix instead.
    if (const Kernel* kernel = cubin.findKernel(pick);
        kernel && kernel->codeSize / 16 != listing->instructions.size()) {
        auto tool = findNvdisasm();
        return makeError("nvdisasm" + (tool ? " (" + tool->string() + ")" : std::string()) + " listed " +
                         std::to_string(listing->instructions.size()) + " instructions of " + pick +
                         ", whose code holds " + std::to_string(kernel->codeSize / 16) +
                         ": its listing is incomplete; point SASSX_NVDISASM at a newer nvdisasm (README)");
    }
    if (stop && stop->load()) return makeError("cancelled");
    std::shared_ptr<KernelWorkspace> k(new KernelWorkspace);
    k->m_input = m_input;
    k->m_cubinIndex = size_t(c);
    k->m_name = pick;
    k->m_key = key;
    k->m_options = m_options;
    k->m_analysis = KernelAnalysis::build(std::move(*listing));
    if (stop && stop->load()) return makeError("cancelled");
    auto checker = std::make_shared<LegalityChecker>(k->m_analysis);
    std::vector<std::pair<InstrId, std::string>> walls;
    if (const Kernel* kernel = cubin.findKernel(pick)) {
        for (const auto& u : unpatchableInstructionsWithReasons(cubin, *kernel, m_options.patch))
            walls.emplace_back(InstrId(u.index), u.reason);
        describeLimits(cubin, *kernel, m_options.patch, k->m_notices, k->m_immovable);
    }
    // Refused edits make every instruction a wall with the one reason, so anything that asks the checker
    // directly (legal moves, a search's space) finds nothing and says why.
    k->m_editRefusal = editRefusal(cubin);
    if (!k->m_editRefusal.empty()) {
        k->m_immovable = k->m_editRefusal;
        k->m_notices = {k->m_editRefusal};
        walls.clear();
        for (InstrId i : indexRange<InstrId>(uint32_t(k->m_analysis->listing.instructions.size())))
            walls.emplace_back(i, k->m_editRefusal);
    }
    checker->addWalls(walls);
    k->m_checker = std::move(checker);
    return std::shared_ptr<const KernelWorkspace>(std::move(k));
}

// ---- KernelWorkspace ------------------------------------------------------------------------------

Result<Schedule> KernelWorkspace::schedule(const std::vector<Edit>& edits) const
{
    return applyEdits(*m_analysis, edits, [this](Schedule& s) { m_checker->fixReuse(s); });
}

LegalityReport KernelWorkspace::check(const std::vector<Edit>& edits, const CheckOptions& options) const
{
    if (!m_editRefusal.empty() && !edits.empty()) {
        LegalityReport report;
        report.hazards.push_back({HazardKind::Wall, InstrId(0), InstrId(0), m_editRefusal, 0});
        return report;
    }
    // Structure first (a move out of its block): applyEdits explains it in words the checker may not.
    auto s = schedule(edits);
    if (!s) {
        LegalityReport report;
        report.hazards.push_back({HazardKind::Structure, InstrId(0), InstrId(0), s.message(), 0});
        return report;
    }
    return m_checker->check(*s, options);
}

Result<std::vector<uint8_t>> KernelWorkspace::write(const Schedule& schedule) const
{
    if (!m_editRefusal.empty() && !schedule.isIdentity(*m_analysis)) return makeError(m_editRefusal);
    return writeSchedule(cubin(), *m_analysis, schedule, m_options.patch);
}

Result<Schedule> KernelWorkspace::scheduleOf(const std::vector<uint8_t>& bytes,
                                             const std::string& label) const
{
    auto parsed = Cubin::parse(bytes);
    if (!parsed) return makeError(label + ": " + parsed.message());
    const Kernel* k = parsed->findKernel(m_name);
    if (!k) return makeError(label + " has no kernel " + m_name);
    auto schedule = recoverSchedule(*m_analysis, *parsed, *k);
    if (!schedule)
        return makeError(label + " is not a reschedule of " + m_input->path +
                         " (its instructions are not the original's, block by block)");
    return *schedule;
}

std::vector<std::pair<Position, Position>> KernelWorkspace::legalMoves(const Schedule& current,
                                                                       bool memoryOnly) const
{
    if (!m_editRefusal.empty()) return {};
    return m_checker->legalMoves(current, memoryOnly);
}

std::optional<Hazard> KernelWorkspace::whyImmovable(const Schedule& current, Position pos) const
{
    if (pos >= current.order.endIndex())
        return Hazard{HazardKind::Structure, InstrId(0), InstrId(0),
                      "no instruction at position " + to_string(pos), 0};
    const InstrId original = current.order[pos];
    if (!m_immovable.empty()) return Hazard{HazardKind::Wall, original, original, m_immovable, 0};
    if (m_checker->isWall(original)) {
        const std::string why = m_checker->wallReasonOf(original);
        return Hazard{HazardKind::Wall, original, original, why.empty() ? "it is a wall" : why, 0};
    }
    std::optional<Hazard> first;
    const auto& blockOf = m_analysis->cfg.blockOf;
    for (int step : {-1, +1}) {
        const int64_t to = int64_t(pos.value()) + step;
        if (to < 0 || to >= int64_t(current.size()) ||
            blockOf[current.order[pos + step].value()] != blockOf[original.value()]) {
            if (!first)
                first = Hazard{HazardKind::Structure, original, original,
                               std::string("a block ") + (step < 0 ? "starts" : "ends") + " next to it", 0};
            continue;
        }
        Schedule s = current;
        s.move(pos, pos + step);
        m_checker->fixReuse(s);
        LegalityReport r = m_checker->check(s, CheckOptions{.stopAtFirst = true, .blocks = {}});
        if (r.legal()) return std::nullopt;
        if (!first || first->kind == HazardKind::Structure) first = r.hazards.front();
    }
    return first;
}

} // namespace sassx
