#include "bench_command.h"

#include "cli_workspace.h"
#include "commands.h"
#include "core/estimate/estimate_evaluator.h"
#include "core/session/kernel_evaluator.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

// Time ratios (candidate / baseline, < 1 = faster) are shown as speed-ups (baseline / candidate,
// > 1 = faster) everywhere a person reads them; the JSON keeps both.
double speedup(double ratio)
{
    return ratio > 0 ? 1.0 / ratio : 0.0;
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
int runEstimateBench(const ParsedArgs& p, KernelEvaluator& kev, const std::vector<uint8_t>& candidate,
                     const std::string& candidatePath)
{
    const LaunchSpec& spec = kev.spec();
    auto& ev = static_cast<EstimateEvaluator&>(*kev.choice().evaluator);
    if (Status s = kev.prepare(); !s) return fail(s.message());
    auto measured = kev.measureCubin(candidate);
    if (!measured) return fail(measured.message());
    const EvalResult& r = *measured;
    if (!r.failureKind.empty()) return fail("candidate: " + r.failure);
    const Estimate& b = ev.baselineEstimate();
    const double cycles = r.metrics.empty() ? 0.0 : r.metrics[0].value;
    const TimingFigures& t = *r.timing;
    const std::string src = "[" + r.source.label() + "]";
    if (p.has("--json")) {
        // Cycles and ratios only: the model's nominal-clock time is several times off on real kernels,
        // and a tool reading "_us" would take it for a time per launch.
        json baseline = ev.baseline().raw;
        baseline.erase("microseconds");
        json j{{"spec", spec.name},
               {"kernel", spec.kernel},
               {"candidate", candidatePath},
               {"backend", "estimate"},
               {"correct", "unverified"},
               {"note", kUnverified},
               {"baseline", baseline},
               {"candidate_cycles", cycles},
               {"ratio", t.ratio.median},
               {"speedup", speedup(t.ratio.median)},
               {"evaluator", {{"backend", kev.choice().backend}, {"reason", kev.choice().reason}}},
               {"source", {{"device", r.source.device}, {"kind", r.source.kind}}}};
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    std::printf("spec         %s (kernel %s, grid %ux%ux%u, block %ux%ux%u, %u B dynamic shared)\n",
                spec.name.c_str(), spec.kernel.c_str(), spec.grid[0], spec.grid[1], spec.grid[2],
                spec.block[0], spec.block[1], spec.block[2], spec.dynamicShared);
    std::printf(
        "model        %d block(s)/SM (limit: %s), %d warp(s)/SMSP, %llu wave(s), %.0f MHz nominal  %s\n",
        b.occupancy.blocksPerSm, b.occupancy.limiter.c_str(), b.occupancy.warpsPerSmsp,
        (unsigned long long)b.occupancy.waves, ev.params()->clockMhz, src.c_str());
    // Cycles and their ratio only: the model's nominal-clock time is several times off on real kernels
    // and must not read as a time per launch.
    std::printf("baseline     %.0f cycles  %s\n", b.cycles, src.c_str());
    std::printf("candidate    %s\n", candidatePath.c_str());
    std::printf("estimate     %.0f cycles  %s\n", cycles, src.c_str());
    std::printf("speed-up     %.4fx  (%s; > 1 = faster)  %s\n", speedup(t.ratio.median),
                pct(t.ratio.median).c_str(), src.c_str());
    std::printf("correct      unverified (nothing ran; use --backend gpu to check outputs)\n");
    return 0;
}

} // namespace

int runBenchCommand(const std::vector<std::string>& args)
{
    std::string error;
    const ParsedArgs p = parseArgs(args,
                                   OptionSpec{{"--cubin", "--rounds", "--screen", "--seed", "--processes"},
                                              {"--metrics", "--json", "--stalls"}}
                                       .add(evaluatorOptionSpec())
                                       .add(OptionSpec{{"--arch"}, {"--keep-stale-line-info"}}),
                                   error);
    if (!error.empty()) return fail(error);
    if (p.positional.size() != 1) return fail("bench needs exactly one SPEC.json");
    auto spec = loadLaunchSpec(p.positional[0]);
    if (!spec) return fail(spec.message());
    // A bench is an explicit request to measure: "gpu" unless asked otherwise, so it never falls back
    // to the estimate silently ("auto" does, and says so).
    auto evalOptions = evaluatorOptions(p, "gpu");
    if (!evalOptions) return fail(evalOptions.message());
    int screenRounds = 10, confirmRounds = 50, processes = 5;
    try {
        screenRounds = std::stoi(p.value("--screen", "10"));
        confirmRounds = std::stoi(p.value("--rounds", "50"));
        processes = std::stoi(p.value("--processes", "5"));
    } catch (const std::exception&) {
        return fail("--screen, --rounds and --processes take numbers");
    }
    if (processes < 1 || processes > 64) return fail("--processes takes 1 to 64");

    if (spec->cubinPath().empty()) return fail("the spec names no \"cubin\" for the original");
    std::vector<uint8_t> candidate;
    const std::string candidatePath = p.value("--cubin", spec->cubinPath());
    if (!readFileBytes(candidatePath, candidate)) return fail("cannot read " + candidatePath);
    auto wsOptions = workspaceOptions(p);
    if (!wsOptions) return fail(wsOptions.message());
    auto ws = Workspace::open(spec->cubinPath(), *wsOptions);
    if (!ws) return fail("the original cubin: " + ws.message());
    auto kernel = (*ws)->kernel(spec->kernel);
    if (!kernel) return fail(kernel.message());
    auto choice = makeEvaluator(*evalOptions);
    if (!choice) return fail(choice.message());
    if (evalOptions->backend == "auto")
        std::fprintf(stderr, "sassx-cli: evaluator: %s (%s)\n", choice->backend.c_str(),
                     choice->reason.c_str());
    KernelEvaluator kev(*kernel, *choice, *spec);
    if (choice->backend == "estimate") return runEstimateBench(p, kev, candidate, candidatePath);
    if (Status s = kev.prepare(); !s) return fail(s.message());

    MeasureOptions mo;
    mo.eval.plan.screenRounds = screenRounds;
    mo.eval.plan.confirmRounds = confirmRounds;
    mo.eval.plan.incumbentRatio = 1e9; // a bench always wants the full, fresh measurement
    mo.eval.plan.confirmStage = 0;     // ... all of it: no early stop
    // ... spread over fresh worker processes, so that the interval covers a re-run in another process
    mo.eval.plan.processes = processes;
    auto measured = kev.measureCubin(candidate, mo);
    if (!measured) return fail(measured.message());
    const EvalResult& r = *measured;
    Evaluator& ev = *choice->evaluator;
    const BaselineInfo& b = ev.baseline();
    const int inputSets = evalOptions->inputSets;

    std::optional<Result<std::vector<MetricValue>>> metrics;
    if (p.has("--metrics") && r.correct) metrics = ev.metrics(Candidate::fromBytes(candidate));
    // Where the candidate's warps wait (sassx-cli stalls gives the per-instruction table).
    std::optional<Result<StallProfile>> stalls;
    if (p.has("--stalls") && r.correct) stalls = ev.stalls(Candidate::fromBytes(candidate));

    const std::string src = "[" + r.source.label() + "]";
    if (p.has("--json")) {
        json j{{"spec", spec->name},
               {"kernel", spec->kernel},
               {"candidate", candidatePath},
               {"evaluator", {{"backend", choice->backend}, {"reason", choice->reason}}},
               {"baseline",
                {{"median_us", b.medianUs},
                 {"noise_floor", b.noiseFloor},
                 {"launch_mode", b.launchMode},
                 {"launches_per_sample", b.launchesPerSample},
                 {"source", {{"device", b.source.device}, {"kind", b.source.kind}}}}},
               {"result", toJson(r)}};
        if (r.timing)
            j["speedup"] = {{"median", speedup(r.timing->ratio.median)},
                            {"low", speedup(r.timing->ratio.high)},
                            {"high", speedup(r.timing->ratio.low)}};
        if (metrics && metrics->ok()) {
            EvalResult withMetrics;
            withMetrics.metrics = metrics->value();
            j["metrics"] = toJson(withMetrics)["metrics"];
        } else if (metrics) {
            j["metrics_error"] = metrics->message();
        }
        if (stalls && stalls->ok())
            j["stalls"] = toJson(stalls->value());
        else if (stalls)
            j["stalls_error"] = stalls->message();
        std::printf("%s\n", j.dump(2).c_str());
        return r.correct ? 0 : 3;
    }

    std::printf("spec         %s (kernel %s, grid %ux%ux%u, block %ux%ux%u, %u B dynamic shared)\n",
                spec->name.c_str(), spec->kernel.c_str(), spec->grid[0], spec->grid[1], spec->grid[2],
                spec->block[0], spec->block[1], spec->block[2], spec->dynamicShared);
    std::printf("set-up       baseline %.3f us/launch when it was set (%s, %d launch(es)/sample)  [%s]\n",
                b.medianUs, b.launchMode.c_str(), b.launchesPerSample, b.source.label().c_str());
    std::printf("noise floor  %.3f%%  (baseline vs itself)  [%s]\n", b.noiseFloor * 100.0,
                b.source.label().c_str());
    std::printf("candidate    %s\n", candidatePath.c_str());
    if (!r.correct) {
        std::printf("correct      NO: %s: %s  %s\n", r.failureKind.c_str(), r.failure.c_str(), src.c_str());
        return 3;
    }
    std::printf("correct      yes (%d input set(s), %s)  %s\n", inputSets,
                spec->tolerance.bitwise() ? "bitwise" : "within tolerance", src.c_str());
    if (r.timing) {
        const TimingFigures& t = *r.timing;
        // One baseline figure in the comparison: the one timed in the same interleaved rounds.
        std::printf("time         %.3f us/launch vs baseline %.3f us/launch in the same rounds  %s\n",
                    t.candidateMedianUs, t.baselineMedianUs, src.c_str());
        std::printf("speed-up     %.4fx  95%% CI [%.4f, %.4f]  (%s; > 1 = faster)  over %d interleaved "
                    "rounds%s  %s\n",
                    speedup(t.ratio.median), speedup(t.ratio.high), speedup(t.ratio.low),
                    pct(t.ratio.median).c_str(), t.ratio.rounds, instancesText(t.ratio).c_str(), src.c_str());
        std::printf(
            "verdict      %s  (rule: interval entirely above 1 and gain above the %.3f%% noise floor; "
            "smaller differences are below what this measurement resolves)  %s\n",
            verdictName(t.verdict).c_str(), t.noiseFloor * 100.0, src.c_str());
        if (spec->flops > 0 && t.candidateMedianUs > 0)
            std::printf("throughput   %.3f TFLOP/s  %s\n", spec->flops / (t.candidateMedianUs * 1e6),
                        src.c_str());
        if (spec->bytes > 0 && t.candidateMedianUs > 0)
            std::printf("bandwidth    %.1f GB/s  %s\n", spec->bytes / (t.candidateMedianUs * 1e3),
                        src.c_str());
    }
    if (metrics) {
        if (!metrics->ok()) {
            std::printf("metrics      unavailable: %s\n", metrics->message().c_str());
        } else {
            for (const MetricValue& m : metrics->value())
                std::printf("metric       %-55s %14.3f %-8s [%s]\n", m.name.c_str(), m.value, m.unit.c_str(),
                            m.source.label().c_str());
        }
    }
    if (stalls) {
        if (!stalls->ok()) {
            std::printf("stalls       unavailable: %s\n", stalls->message().c_str());
        } else {
            const StallProfile& sp = stalls->value();
            std::string words;
            for (const auto& [word, n] : stallTotals(sp)) {
                if (words.size() > 90) break;
                char b[64];
                std::snprintf(b, sizeof b, "%s%s %.1f%%", words.empty() ? "" : ", ", word.c_str(),
                              sp.kernelSamples ? 100.0 * double(n) / double(sp.kernelSamples) : 0.0);
                words += b;
            }
            std::printf(
                "stalls       %llu samples (2^%d cycles): %s  [%s]  (per instruction: sassx-cli stalls)\n",
                (unsigned long long)sp.kernelSamples, sp.periodExponent, words.c_str(),
                sp.source.label().c_str());
        }
    }
    return 0;
}
