#pragma once
// The CLI's side of the workspace: the options every kernel command shares (--arch, --kernel, the
// line-table escape hatch, the evaluator options) added to a command in one place, so a command cannot
// forget one or give it another default.
#include "commands.h"

#include "core/session/search_run.h" // search::SearchConfig, what --algo and --space set
#include "core/session/workspace.h"

#include <memory>
#include <optional>
#include <string>

struct CliKernel
{
    std::shared_ptr<const sassx::Workspace> workspace;
    std::shared_ptr<const sassx::KernelWorkspace> kernel;
};

struct WorkspaceArgs
{
    std::string arch = sassx::kDefaultArch;
    std::string kernel; // empty: the only kernel
    bool keepStaleLineInfo = false;
};

// Commands on a launch spec take the kernel the spec names; the others take --kernel.
enum class KernelOption
{
    Given,
    FromSpec
};

// --arch A (all that `info` takes).
void addArchOption(CLI::App& command, WorkspaceArgs& args);
// --arch A, --keep-stale-line-info and, unless the kernel comes from a spec, --kernel K.
void addWorkspaceOptions(CLI::App& command, WorkspaceArgs& args, KernelOption kernel = KernelOption::Given);
sassx::WorkspaceOptions workspaceOptions(const WorkspaceArgs& args);

struct EvaluatorArgs
{
    // As typed (eval/backend.h names); a command may set its own default first.
    std::string backend = std::string(sassx::eval::backendName(sassx::EvaluatorOptions{}.backend));
    std::optional<std::string> gpus; // "0,2": setGpuList (gpu_list.h)
    std::string worker;
    int inputSets = sassx::EvaluatorOptions{}.inputSets;
    std::optional<uint64_t> inputSeed; // none: the worker protocol's default
    bool l2Flush = false;
    std::string metricsBackend =
        std::string(sassx::eval::metricsBackendName(sassx::EvaluatorOptions{}.metricsBackend));
};

// --backend, --gpus, --worker, --input-sets, --input-seed, --l2-flush, --metrics-backend.
void addEvaluatorOptions(CLI::App& command, EvaluatorArgs& args);
sassx::Result<sassx::EvaluatorOptions> evaluatorOptions(const EvaluatorArgs& args);

// --algo and --space into a search configuration (search and tune): the core's parsers stay the one
// mapping from names; both options are already one of their choices (oneOf). --space auto picks by
// `rule` (search_config.h, autoSpace) for --backend `backend`, which SearchRun resolves again once
// `auto` has found a GPU or not.
sassx::Status setAlgorithmAndSpace(sassx::search::SearchConfig& config, const std::string& algo,
                                   const std::string& space, sassx::search::AutoSpace rule,
                                   const std::string& backend);

// Opens `path` and analyses --kernel (or the only kernel); `kernelOverride` wins over --kernel.
sassx::Result<CliKernel> openKernel(const std::string& path, const WorkspaceArgs& args,
                                    const std::string& kernelOverride = {});
// The kernel's notices (limits on what may move), each once on stderr as "sassx-cli: note: …".
void printNotices(const sassx::KernelWorkspace& kernel);
