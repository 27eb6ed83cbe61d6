#include "cli_workspace.h"

#include "core/eval/gpu_evaluator.h"

#include <cstdio>

using namespace sassx;

const OptionSpec& workspaceOptionSpec()
{
    static const OptionSpec spec{{"--arch", "--kernel"}, {"--keep-stale-line-info"}};
    return spec;
}

const OptionSpec& evaluatorOptionSpec()
{
    static const OptionSpec spec{
        {"--backend", "--gpus", "--worker", "--input-sets", "--input-seed", "--metrics-backend"},
        {"--l2-flush"}};
    return spec;
}

Result<WorkspaceOptions> workspaceOptions(const ParsedArgs& args)
{
    WorkspaceOptions o;
    o.arch = args.value("--arch", "sm_90");
    o.patch.keepStaleLineInfo = args.has("--keep-stale-line-info");
    return o;
}

namespace {

template <class T> Result<T> number(const ParsedArgs& args, const std::string& name, T fallback)
{
    if (!args.has(name)) return fallback;
    const std::string v = args.value(name);
    try {
        size_t used = 0;
        const unsigned long long n = std::stoull(v, &used, 0);
        if (used != v.size() || v.starts_with('-')) throw std::invalid_argument(v);
        return T(n);
    } catch (const std::exception&) {
        return makeError(name + " takes a non-negative number, not '" + v + "'");
    }
}

} // namespace

Result<EvaluatorOptions> evaluatorOptions(const ParsedArgs& args, const std::string& defaultBackend)
{
    EvaluatorOptions o;
    o.backend = args.value("--backend", defaultBackend);
    if (args.has("--gpus")) {
        auto gpus = eval::parseGpuList(args.value("--gpus"));
        if (!gpus) return gpus.error();
        o.gpus = *gpus;
    }
    o.workerPath = args.value("--worker");
    auto sets = number<int>(args, "--input-sets", o.inputSets);
    if (!sets) return sets.error();
    o.inputSets = *sets;
    auto seed = number<uint64_t>(args, args.has("--input-seed") ? "--input-seed" : "--seed", o.seed);
    if (!seed) return seed.error();
    o.seed = *seed;
    o.l2Flush = args.has("--l2-flush");
    o.metricsBackend = args.value("--metrics-backend", "auto");
    if (Status s = validate(o); !s) return s.error();
    return o;
}

Result<CliKernel> openKernel(const std::string& path, const ParsedArgs& args,
                             const std::string& kernelOverride)
{
    auto options = workspaceOptions(args);
    if (!options) return options.error();
    auto ws = Workspace::open(path, *options);
    if (!ws) return ws.error();
    auto k = (*ws)->kernel(kernelOverride.empty() ? args.value("--kernel") : kernelOverride);
    if (!k) return k.error();
    return CliKernel{*ws, *k};
}

void printNotices(const KernelWorkspace& kernel)
{
    for (const std::string& n : kernel.notices())
        std::fprintf(stderr, "sassx-cli: note: %s\n", n.c_str());
}
