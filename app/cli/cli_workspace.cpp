#include "cli_workspace.h"

#include "cli_options.h"
#include "core/session/gpu_list.h"

#include <cstdio>

using namespace sassx;

void addArchOption(CLI::App& command, WorkspaceArgs& args)
{
    command.add_option("--arch", args.arch, "architecture to compile .cu/.ptx inputs for")
        ->type_name("SM")
        ->capture_default_str();
}

void addWorkspaceOptions(CLI::App& command, WorkspaceArgs& args, KernelOption kernel)
{
    addArchOption(command, args);
    if (kernel == KernelOption::Given)
        command.add_option("--kernel", args.kernel, "the kernel (a key `info` lists); default: the only one")
            ->type_name("K");
    command.add_flag("--keep-stale-line-info", args.keepStaleLineInfo,
                     "write cubins whose line table no longer matches (an escape hatch)");
}

WorkspaceOptions workspaceOptions(const WorkspaceArgs& args)
{
    WorkspaceOptions o;
    o.arch = args.arch;
    o.patch.keepStaleLineInfo = args.keepStaleLineInfo;
    return o;
}

void addEvaluatorOptions(CLI::App& command, EvaluatorArgs& args)
{
    command
        .add_option("--backend", args.backend, "gpu: measure; estimate: the schedule model; auto: gpu if any")
        ->check(oneOf(enumNameList(eval::kBackendNames)))
        ->capture_default_str();
    command.add_option("--gpus", args.gpus, "GPU ordinals to measure on, e.g. 0,2 (default: GPU 0)")
        ->type_name("LIST");
    command.add_option("--worker", args.worker, "the sassx-worker to start (default: beside sassx-cli)")
        ->type_name("PATH");
    command.add_option("--input-sets", args.inputSets, "fresh input sets every candidate is checked on")
        ->check(nonNegative())
        ->capture_default_str();
    command
        .add_option("--input-seed", args.inputSeed,
                    "seed of the generated inputs (default: " + std::to_string(EvaluatorOptions{}.seed) + ")")
        ->check(nonNegative());
    command.add_flag("--l2-flush", args.l2Flush, "flush L2 between timed launches");
    command.add_option("--metrics-backend", args.metricsBackend, "where Nsight Compute metrics come from")
        ->check(oneOf(enumNameList(eval::kMetricsBackendNames)))
        ->capture_default_str();
}

Result<EvaluatorOptions> evaluatorOptions(const EvaluatorArgs& args)
{
    EvaluatorOptions o;
    auto backend = parseEnumOrError(eval::kBackendNames, args.backend, "--backend");
    if (!backend) return backend.error();
    o.backend = *backend;
    if (args.gpus) {
        if (Status s = setGpuList(o, *args.gpus); !s) return s.error();
    }
    o.workerPath = args.worker;
    o.inputSets = args.inputSets;
    o.seed = args.inputSeed.value_or(o.seed);
    o.l2Flush = args.l2Flush;
    auto metrics = parseEnumOrError(eval::kMetricsBackendNames, args.metricsBackend, "--metrics-backend");
    if (!metrics) return metrics.error();
    o.metricsBackend = *metrics;
    if (Status s = validate(o); !s) return s.error();
    return o;
}

Result<CliKernel> openKernel(const std::string& path, const WorkspaceArgs& args,
                             const std::string& kernelOverride)
{
    auto ws = Workspace::open(path, workspaceOptions(args));
    if (!ws) return ws.error();
    auto k = (*ws)->kernel(kernelOverride.empty() ? args.kernel : kernelOverride);
    if (!k) return k.error();
    return CliKernel{*ws, *k};
}

void printNotices(const KernelWorkspace& kernel)
{
    for (const std::string& n : kernel.notices())
        std::fprintf(stderr, "sassx-cli: note: %s\n", n.c_str());
}

sassx::Status setAlgorithmAndSpace(sassx::search::SearchConfig& config, const std::string& algo,
                                   const std::string& space, sassx::search::AutoSpace rule,
                                   const std::string& backend)
{
    const auto algorithm = sassx::search::parseAlgorithm(algo);
    if (!algorithm) return sassx::makeError("unknown --algo '" + algo + "'");
    config.algorithm = *algorithm;
    if (space == "auto") {
        config.autoSpace = rule;
        // Provisional under --backend auto: the run resolves it again once a GPU is found or not.
        config.resolveSpace(eval::parseBackend(backend) != eval::Backend::Estimate);
        return sassx::Ok{};
    }
    const auto parsedSpace = sassx::search::parseSearchSpace(space);
    if (!parsedSpace) return sassx::makeError("unknown --space '" + space + "'");
    config.space = *parsedSpace;
    config.autoSpace = sassx::search::AutoSpace::Off;
    return sassx::Ok{};
}
