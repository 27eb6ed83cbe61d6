#include "bench_command.h"

#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"
#include "core/session/kernel_evaluator.h"
#include "core/session/variant_import.h"
#include "core/session/variant_record.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

struct BenchArgs
{
    std::string spec;
    std::string cubin; // empty: the spec's own
    WorkspaceArgs workspace;
    EvaluatorArgs evaluator;
    std::optional<uint64_t> seed; // the input seed, when --input-seed is not given
    int screenRounds = 10, confirmRounds = 50, processes = 5;
    bool metrics = false, stalls = false, json = false;
};

// Time ratios (candidate / baseline, < 1 = faster) are shown as speed-ups (baseline / candidate,
// > 1 = faster) everywhere a person reads them (core/eval/speedup.h); the JSON keeps both.
double speedup(double ratio)
{
    return Speedup::fromTimeRatio(ratio);
}

std::string pct(double ratio)
{
    char b[32];
    std::snprintf(b, sizeof b, "%+.2f%%", (speedup(ratio) - 1.0) * 100.0);
    return b;
}

// " in K fresh processes (…)" when the rounds were spread over processes (AdaptivePlan::processes).
std::string instancesText(const RatioInterval& r)
{
    if (r.instances < 2) return {};
    return " in " + std::to_string(r.instances) +
           " fresh worker processes (the interval: where 95% of re-runs fall)";
}

// --backend estimate: the schedule model's figures for the original and the candidate. Nothing runs,
// so correctness is "unverified" and every figure says [estimate].
int runEstimateBench(const BenchArgs& args, KernelEvaluator& kev, const std::vector<uint8_t>& candidate,
                     const std::string& candidatePath)
{
    const LaunchSpec& spec = kev.spec();
    if (Status s = kev.prepare(); !s) return fail(s.message());
    auto measured = kev.measureCubin(candidate);
    if (!measured) return fail(measured.message());
    const EvalResult& r = *measured;
    if (!r.failureKind.empty()) return fail("candidate: " + r.failure);
    // The model's account of the original: its figures in BaselineInfo::raw (docs/evaluator.md).
    const json& b = kev.choice().evaluator->baseline().raw;
    const double cycles = r.metrics.empty() ? 0.0 : r.metrics[0].value;
    const TimingFigures& t = *r.timing;
    const std::string src = "[" + r.source.label() + "]";
    if (args.json) {
        // Cycles and ratios only: the model's nominal-clock time is several times off on real kernels,
        // and a tool reading "_us" would take it for a time per launch.
        json baseline = b;
        baseline.erase("microseconds");
        json j{{"spec", spec.name},
               {"kernel", spec.kernel},
               {"candidate", candidatePath},
               {"backend", eval::backendName(eval::Backend::Estimate)},
               {"correct", "unverified"},
               {"note", r.failure}, // "unverified: ...": nothing ran
               {"baseline", baseline},
               {"candidate_cycles", cycles},
               {"ratio", t.ratio.median},
               {"speedup", speedup(t.ratio.median)},
               {"evaluator",
                {{"backend", eval::backendName(kev.choice().backend)}, {"reason", kev.choice().reason}}},
               {"source", toJson(r.source)}};
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("spec         %s (kernel %s, grid %ux%ux%u, block %ux%ux%u, %u B dynamic shared)\n",
                spec.name.c_str(), spec.kernel.c_str(), spec.grid[0], spec.grid[1], spec.grid[2],
                spec.block[0], spec.block[1], spec.block[2], spec.dynamicShared);
    std::printf(
        "model        %d block(s)/SM (limit: %s), %d warp(s)/SMSP, %llu wave(s), %.0f MHz nominal  %s\n",
        b.value("blocks_per_sm", 0), b.value("occupancy_limiter", std::string()).c_str(),
        b.value("warps_per_smsp", 0), (unsigned long long)b.value("waves", uint64_t(0)),
        b.value("clock_mhz", 0.0), src.c_str());
    // Cycles and their ratio only: the model's nominal-clock time is several times off on real kernels
    // and must not read as a time per launch.
    std::printf("baseline     %.0f cycles  %s\n", b.value("cycles", 0.0), src.c_str());
    std::printf("candidate    %s\n", candidatePath.c_str());
    std::printf("estimate     %.0f cycles  %s\n", cycles, src.c_str());
    std::printf("speed-up     %s  (%s; > 1 = faster)  %s\n",
                Speedup::fromRatio(t.ratio, 0.0, true).text().c_str(), pct(t.ratio.median).c_str(),
                src.c_str());
    std::printf("correct      unverified (nothing ran; use --backend gpu to check outputs)\n");
    return 0;
}

// Nsight Compute metrics and stall samples of a correct candidate, when asked for.
struct BenchExtras
{
    std::optional<Result<std::vector<MetricValue>>> metrics;
    std::optional<Result<StallProfile>> stalls;
};

void printJson(const LaunchSpec& spec, const std::string& candidatePath, const EvaluatorChoice& choice,
               const EvalResult& r, const BenchExtras& extras)
{
    const BaselineInfo& b = choice.evaluator->baseline();
    json j{{"spec", spec.name},
           {"kernel", spec.kernel},
           {"candidate", candidatePath},
           {"evaluator", {{"backend", eval::backendName(choice.backend)}, {"reason", choice.reason}}},
           {"baseline",
            {{"median_us", b.medianUs},
             {"noise_floor", b.noiseFloor},
             {"launch_mode", eval::launchModeName(b.launchMode)},
             {"launches_per_sample", b.launchesPerSample},
             {"source", toJson(b.source)}}},
           {"result", toJson(r)}};
    if (b.raw.contains("reference")) j["baseline"]["reference"] = b.raw.at("reference");
    if (r.timing)
        j["speedup"] = {{"median", speedup(r.timing->ratio.median)},
                        {"low", speedup(r.timing->ratio.high)},
                        {"high", speedup(r.timing->ratio.low)}};
    if (extras.metrics && extras.metrics->ok()) {
        EvalResult withMetrics;
        withMetrics.metrics = extras.metrics->value();
        j["metrics"] = toJson(withMetrics)["metrics"];
    } else if (extras.metrics) {
        j["metrics_error"] = extras.metrics->message();
    }
    if (extras.stalls && extras.stalls->ok())
        j["stalls"] = toJson(extras.stalls->value());
    else if (extras.stalls)
        j["stalls_error"] = extras.stalls->message();
    std::printf("%s\n", j.dump(2).c_str());
}

void printTiming(const LaunchSpec& spec, const TimingFigures& t, const std::string& src)
{
    // One baseline figure in the comparison: the one timed in the same interleaved rounds.
    std::printf("time         %.3f us/launch vs baseline %.3f us/launch in the same rounds  %s\n",
                t.candidateMedianUs, t.baselineMedianUs, src.c_str());
    const Speedup s = Speedup::fromTiming(t, false);
    std::printf("speed-up     %s  95%% CI %s  (%s; > 1 = faster)  over %d interleaved rounds%s  %s\n",
                s.text().c_str(), s.intervalText().c_str(), pct(t.ratio.median).c_str(), t.ratio.rounds,
                instancesText(t.ratio).c_str(), src.c_str());
    std::printf("verdict      %s  (rule: interval entirely above 1 and gain above the %.3f%% noise floor; "
                "smaller differences are below what this measurement resolves)  %s\n",
                verdictName(t.verdict).c_str(), t.noiseFloor * 100.0, src.c_str());
    if (spec.flops > 0 && t.candidateMedianUs > 0)
        std::printf("throughput   %.3f TFLOP/s  %s\n", spec.flops / (t.candidateMedianUs * 1e6), src.c_str());
    if (spec.bytes > 0 && t.candidateMedianUs > 0)
        std::printf("bandwidth    %.1f GB/s  %s\n", spec.bytes / (t.candidateMedianUs * 1e3), src.c_str());
}

void printExtras(const BenchExtras& extras)
{
    if (extras.metrics) {
        if (!extras.metrics->ok()) {
            std::printf("metrics      unavailable: %s\n", extras.metrics->message().c_str());
        } else {
            for (const MetricValue& m : extras.metrics->value())
                std::printf("metric       %-55s %14.3f %-8s [%s]\n", m.name.c_str(), m.value, m.unit.c_str(),
                            m.source.label().c_str());
        }
    }
    if (!extras.stalls) return;
    if (!extras.stalls->ok()) {
        std::printf("stalls       unavailable: %s\n", extras.stalls->message().c_str());
        return;
    }
    const StallProfile& sp = extras.stalls->value();
    std::string words;
    for (const auto& [word, n] : stallTotals(sp)) {
        if (words.size() > 90) break;
        char b[64];
        std::snprintf(b, sizeof b, "%s%s %.1f%%", words.empty() ? "" : ", ", word.c_str(),
                      sp.kernelSamples ? 100.0 * double(n) / double(sp.kernelSamples) : 0.0);
        words += b;
    }
    std::printf("stalls       %llu samples (2^%d cycles): %s  [%s]  (per instruction: sassx-cli stalls)\n",
                (unsigned long long)sp.kernelSamples, sp.periodExponent, words.c_str(),
                sp.source.label().c_str());
}

// The text report; returns the exit code (3: the candidate is not correct).
int printText(const LaunchSpec& spec, const std::string& candidatePath, const BaselineInfo& b,
              const EvalResult& r, int inputSets, const BenchExtras& extras)
{
    const std::string src = "[" + r.source.label() + "]";
    std::printf("spec         %s (kernel %s, grid %ux%ux%u, block %ux%ux%u, %u B dynamic shared)\n",
                spec.name.c_str(), spec.kernel.c_str(), spec.grid[0], spec.grid[1], spec.grid[2],
                spec.block[0], spec.block[1], spec.block[2], spec.dynamicShared);
    std::printf("set-up       baseline %.3f us/launch when it was set (%s, %d launch(es)/sample)  [%s]\n",
                b.medianUs, eval::launchModeName(b.launchMode).c_str(), b.launchesPerSample,
                b.source.label().c_str());
    std::printf("noise floor  %.3f%%  (baseline vs itself)  [%s]\n", b.noiseFloor * 100.0,
                b.source.label().c_str());
    if (const std::string line = programReferenceLine(b.raw); !line.empty())
        std::printf("program      %s  [%s]\n", line.c_str(), b.source.label().c_str());
    std::printf("candidate    %s\n", candidatePath.c_str());
    if (!r.correct) {
        std::printf("correct      NO: %s: %s  %s\n", r.failureKind.c_str(), r.failure.c_str(), src.c_str());
        return 3;
    }
    std::printf("correct      yes (%d input set(s), %s)  %s\n", inputSets,
                spec.tolerance.bitwise() ? "bitwise" : "within tolerance", src.c_str());
    if (r.timing) printTiming(spec, *r.timing, src);
    printExtras(extras);
    return 0;
}

int runBench(BenchArgs args)
{
    if (args.processes < 1 || args.processes > 64) return fail("--processes takes 1 to 64");
    auto spec = loadLaunchSpec(args.spec);
    if (!spec) return fail(spec.message());
    // A bench is an explicit request to measure: "gpu" unless asked otherwise, so it never falls back
    // to the estimate silently ("auto" does, and says so).
    if (!args.evaluator.inputSeed) args.evaluator.inputSeed = args.seed;
    auto evalOptions = evaluatorOptions(args.evaluator);
    if (!evalOptions) return fail(evalOptions.message());
    if (spec->cubinPath().empty()) return fail("the spec names no \"cubin\" for the original");
    std::vector<uint8_t> candidate;
    const std::string candidatePath = args.cubin.empty() ? spec->cubinPath() : args.cubin;
    if (!readFileBytes(candidatePath, candidate)) return fail("cannot read " + candidatePath);
    auto ws = Workspace::open(spec->cubinPath(), workspaceOptions(args.workspace));
    if (!ws) return fail("the original cubin: " + ws.message());
    auto kernel = (*ws)->kernel(spec->kernel);
    if (!kernel) return fail(kernel.message());
    // Another tool's schedule is measured as asked, never silently as if the checker had passed it.
    if (!args.cubin.empty()) {
        const CheckerVerdict checker = judgeInput(**kernel, args.cubin, workspaceOptions(args.workspace));
        if (checker.unjudged.empty() && !checker.legal())
            std::fprintf(
                stderr, "sassx-cli: note: %s is not checked legal: %s (sassx-cli diff lists every refusal)\n",
                args.cubin.c_str(), checker.refusalLines().front().c_str());
    }
    auto choice = makeEvaluator(*evalOptions);
    if (!choice) return fail(choice.message());
    if (evalOptions->backend == eval::Backend::Auto)
        std::fprintf(stderr, "sassx-cli: evaluator: %s (%s)\n", eval::backendName(choice->backend).c_str(),
                     choice->reason.c_str());
    KernelEvaluator kev(*kernel, *choice, *spec);
    if (choice->backend == eval::Backend::Estimate)
        return runEstimateBench(args, kev, candidate, candidatePath);
    if (Status s = kev.prepare(); !s) return fail(s.message());

    MeasureOptions mo;
    mo.eval.plan.screenRounds = args.screenRounds;
    mo.eval.plan.confirmRounds = args.confirmRounds;
    mo.eval.plan.incumbentRatio = 1e9; // a bench always wants the full, fresh measurement
    mo.eval.plan.confirmStage = 0;     // ... all of it: no early stop
    // ... spread over fresh worker processes, so that the interval covers a re-run in another process
    mo.eval.plan.processes = args.processes;
    auto measured = kev.measureCubin(candidate, mo);
    if (!measured) return fail(measured.message());
    const EvalResult& r = *measured;
    Evaluator& ev = *choice->evaluator;
    BenchExtras extras;
    if (args.metrics && r.correct) extras.metrics = ev.metrics(Candidate::fromBytes(candidate));
    // Where the candidate's warps wait (sassx-cli stalls gives the per-instruction table).
    if (args.stalls && r.correct) extras.stalls = ev.stalls(Candidate::fromBytes(candidate));
    if (args.json) {
        printJson(*spec, candidatePath, *choice, r, extras);
        return r.correct ? 0 : 3;
    }
    return printText(*spec, candidatePath, ev.baseline(), r, evalOptions->inputSets, extras);
}

} // namespace

CliCommand addBenchCommand(CLI::App& root)
{
    auto args = std::make_shared<BenchArgs>();
    args->evaluator.backend = eval::backendName(eval::Backend::Gpu);
    CLI::App* command = root.add_subcommand("bench", "measure a cubin against its launch spec's original");
    command->add_option("SPEC.json", args->spec, "the launch spec (docs/launch-spec.md)")->required();
    command->add_option("--cubin", args->cubin, "the candidate (default: the spec's own cubin)")
        ->type_name("FILE");
    addEvaluatorOptions(*command, args->evaluator);
    command->add_option("--seed", args->seed, "the input seed, when --input-seed is not given")
        ->check(nonNegative());
    command->add_option("--screen", args->screenRounds, "rounds of the first, screening stage")
        ->capture_default_str();
    command->add_option("--rounds", args->confirmRounds, "interleaved rounds of the measurement")
        ->capture_default_str();
    command
        ->add_option("--processes", args->processes,
                     "fresh worker processes the rounds are spread over (1 to 64)")
        ->capture_default_str();
    command->add_flag("--metrics", args->metrics, "Nsight Compute metrics of the candidate too");
    command->add_flag("--stalls", args->stalls, "where the candidate's warps wait too (stall samples)");
    command->add_flag("--json", args->json, "JSON instead of text");
    addWorkspaceOptions(*command, args->workspace, KernelOption::FromSpec);
    return {command, [args] { return runBench(*args); }};
}
