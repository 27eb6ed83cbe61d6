#pragma once
// The one kernel pipeline every face of sassx drives (docs/architecture.md): open an input → pick a
// kernel → disassembly and analysis → the legality checker *with the cubin writer's walls* → edits →
// the tuned cubin. Synchronous and Qt-free: the CLI calls it directly, the GUI's Session runs its steps
// as jobs, and searches share one KernelWorkspace across threads (it is immutable once built).
//
// Nothing else builds a LegalityChecker or chooses patch options, so the GUI, the CLI and searches can
// never disagree about what is legal or what the writer accepts.
#include "core/analysis/kernel_analysis.h"
#include "core/common/result.h"
#include "core/rewrite/block_positions.h" // re-exported: the views walk a schedule block by block
#include "core/rewrite/legality.h"
#include "core/rewrite/patch_limits.h"
#include "core/rewrite/variant.h"
#include "core/session/evaluator_options.h"
#include "core/session/input_loader.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sassx {

struct WorkspaceOptions
{
    std::string arch = kDefaultArch; // for .cu / .ptx inputs
    // What the writer may do with offsets it does not own. The default rewrites line tables, so Triton
    // cubins (which always carry them) are editable and a profiler's source view of a tuned cubin stays
    // right; keepStaleLineInfo is an escape hatch, never set silently.
    PatchOptions patch;
    EvaluatorOptions evaluator;
};

class KernelWorkspace;

// One kernel of an input as a picker shows it. A host executable holds each kernel once per
// architecture it was built for: the key tells the copies apart.
struct KernelEntry
{
    std::string key;       // what Workspace::kernel() takes: the symbol, or "symbol@sm_80" when several
                           // cubins hold it ("symbol@3", the cubin index, when even the arch repeats)
    std::string name;      // the symbol
    std::string demangled; // the C++ name, or the symbol when it is not mangled
    std::string arch;      // "sm_90", "sm_90a"
    int sm = 0;            // 90
    size_t cubin = 0;      // index into LoadedInput::cubins
    size_t instructions = 0;
};

class Workspace
{
public:
    // Loads the input (a cubin, fatbin, host binary, .cu/.ptx compiled for options.arch, or a Triton
    // cache entry). The error is one line.
    static Result<std::shared_ptr<const Workspace>> open(const std::string& path,
                                                         WorkspaceOptions options = {});

    const LoadedInput& input() const { return *m_input; }
    const WorkspaceOptions& options() const { return m_options; }
    // Every kernel of every cubin, in input order.
    const std::vector<KernelEntry>& kernels() const { return m_kernels; }
    // Their keys (unique), in the same order.
    std::vector<std::string> kernelNames() const;
    // The entry `key` names: an exact key, else a bare symbol held by several cubins, which picks the
    // copy for the newest architecture (the one a current GPU runs). Null when none matches.
    const KernelEntry* findKernel(const std::string& key) const;
    // The kernel to offer first: the first kernel of the newest architecture.
    size_t defaultKernel() const;
    // Index into input().cubins of the cubin holding `kernel` (a key or symbol), -1 if none does.
    int cubinIndexOf(const std::string& kernel) const;
    // samples/<name>.launch.json beside <name>.sm_90.cubin (the usual layout), else empty.
    std::string defaultLaunchSpecPath() const;

    // Disassembles and analyses `kernel` (empty: the input's only kernel; with several, the error lists
    // them) and builds its checker. `stop` is polled between the slow steps; a stopped build returns an
    // error saying so.
    Result<std::shared_ptr<const KernelWorkspace>> kernel(const std::string& kernel = {},
                                                          const std::atomic_bool* stop = nullptr) const;

private:
    Workspace() = default;
    void listKernels();
    std::shared_ptr<const LoadedInput> m_input;
    WorkspaceOptions m_options;
    std::vector<KernelEntry> m_kernels;
};

// One analysed kernel of a workspace: everything needed to judge, apply and write edits.
class KernelWorkspace
{
public:
    // The kernel's symbol (what the cubin, launch specs and reports name).
    const std::string& name() const { return m_name; }
    // What it was opened by (Workspace::kernels()): the symbol, or "symbol@sm_80" for one copy of several.
    const std::string& key() const { return m_key; }
    const Cubin& cubin() const { return m_input->cubins[m_cubinIndex].cubin; }
    const LoadedInput& input() const { return *m_input; }
    const WorkspaceOptions& options() const { return m_options; }
    const KernelAnalysis& analysis() const { return *m_analysis; }
    const std::shared_ptr<const KernelAnalysis>& analysisPtr() const { return m_analysis; }
    const LegalityChecker& checker() const { return *m_checker; }

    // Things the user must be told once about this kernel, in words (e.g. "no instruction can move:
    // <why>", "14 instructions are pinned: <first reason>"). Empty when nothing limits edits.
    const std::vector<std::string>& notices() const { return m_notices; }
    // Non-empty when no instruction of the kernel may move at all, with the reason.
    const std::string& immovableReason() const { return m_immovable; }
    // Non-empty when every move and control edit of the kernel is refused (core/analysis/arch_model.h:
    // an architecture without measured evidence, or capmerc code beside .text), in one line. Then check()
    // refuses any edit, legalMoves() is empty and write() writes nothing but the original schedule.
    const std::string& editRefusal() const { return m_editRefusal; }

    // Applies edits (structure only) with the reuse fix-up after every move, exactly as random variants
    // and the GUI generate them, so a replayed variant gets identical bytes.
    Result<Schedule> schedule(const std::vector<Edit>& edits) const;
    // Structure, then every legality rule; an edit list that does not even apply is one Structure hazard.
    LegalityReport check(const std::vector<Edit>& edits, const CheckOptions& options = {}) const;
    // The whole tuned cubin for a schedule (refused, with a sentence, when the writer cannot follow it).
    Result<std::vector<uint8_t>> write(const Schedule& schedule) const;
    // The schedule a tuned cubin of this kernel holds (its words matched to the original's, block by
    // block), so that figures by offset map back to original instructions; `label` names the cubin in
    // the error, which says why it is not a reschedule of this kernel.
    Result<Schedule> scheduleOf(const std::vector<uint8_t>& cubin, const std::string& label) const;
    // Every legal single move (from position, to position) of `current`.
    std::vector<std::pair<Position, Position>> legalMoves(const Schedule& current, bool memoryOnly) const;
    // Why the instruction at position `pos` of `current` cannot move one step up or down: the first
    // hazard that blocks it (the step up's, else the step down's), or nothing when a step is legal.
    // For "nothing can move" explanations.
    std::optional<Hazard> whyImmovable(const Schedule& current, Position pos) const;

private:
    friend class Workspace;
    KernelWorkspace() = default;
    std::shared_ptr<const LoadedInput> m_input;
    size_t m_cubinIndex = 0;
    std::string m_name, m_key;
    WorkspaceOptions m_options;
    std::shared_ptr<const KernelAnalysis> m_analysis;
    std::shared_ptr<const LegalityChecker> m_checker;
    std::vector<std::string> m_notices;
    std::string m_immovable;
    std::string m_editRefusal;
};

} // namespace sassx
