#include "bench_command.h"

#include "commands.h"
#include "core/eval/gpu_evaluator.h"
#ifdef SASSX_HAVE_ESTIMATE
#include "core/eval/estimate_evaluator.h"
#endif
#include "core/eval/ncu_metrics.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

bool readFile(const std::string& path, std::vector<uint8_t>& out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), {});
    return true;
}

std::string pct(double ratio)
{
    char b[32];
    std::snprintf(b, sizeof b, "%+.2f%%", (ratio - 1.0) * 100.0);
    return b;
}

#ifdef SASSX_HAVE_ESTIMATE
// --backend estimate: the schedule model's figures for the original and the candidate. Nothing runs,
// so correctness is "unverified" and every figure says [estimate].
int runEstimateBench(const ParsedArgs& p, const LaunchSpec& spec, const std::vector<uint8_t>& baseline,
                     const std::vector<uint8_t>& candidate, const std::string& candidatePath)
{
    EstimateEvaluator ev;
    if (Status s = ev.setBaseline(spec, baseline); !s) return fail(s.message());
    const EvalResult r = ev.evaluate(candidate);
    if (!r.failureKind.empty()) return fail("candidate: " + r.failure);
    const Estimate& b = ev.baselineEstimate();
    const double cycles = r.metrics.empty() ? 0.0 : r.metrics[0].value;
    const TimingFigures& t = *r.timing;
    const std::string src = "[" + r.source.label() + "]";
    if (p.has("--json")) {
        json j{{"spec", spec.name},
               {"kernel", spec.kernel},
               {"candidate", candidatePath},
               {"backend", "estimate"},
               {"correct", "unverified"},
               {"note", kUnverified},
               {"baseline", ev.baseline().raw},
               {"candidate_cycles", cycles},
               {"candidate_us", t.candidateMedianUs},
               {"ratio", t.ratio.median},
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
    std::printf("baseline     %.0f cycles  (%.3f us at the nominal clock)  %s\n", b.cycles, b.microseconds,
                src.c_str());
    std::printf("candidate    %s\n", candidatePath.c_str());
    std::printf("estimate     %.0f cycles  (%.3f us at the nominal clock)  %s\n", cycles, t.candidateMedianUs,
                src.c_str());
    std::printf("ratio        %.4f  (%s, candidate/baseline)  %s\n", t.ratio.median,
                pct(t.ratio.median).c_str(), src.c_str());
    std::printf("correct      unverified (nothing ran; use --backend gpu to check outputs)\n");
    return 0;
}
#endif

} // namespace

int runBenchCommand(const std::vector<std::string>& args)
{
    std::string error;
    const ParsedArgs p = parseArgs(args,
                                   {"--cubin", "--backend", "--gpus", "--rounds", "--screen", "--input-sets",
                                    "--seed", "--worker", "--metrics-backend"},
                                   error);
    if (!error.empty()) return fail(error);
    if (p.positional.size() != 1) return fail("bench needs exactly one SPEC.json");
    auto spec = loadLaunchSpec(p.positional[0]);
    if (!spec) return fail(spec.message());
    const std::string backend = p.value("--backend", "gpu");
    if (backend != "gpu" && backend != "estimate") return fail("--backend must be gpu or estimate");

    std::vector<uint8_t> baseline, candidate;
    if (spec->cubinPath().empty()) return fail("the spec names no \"cubin\" for the original");
    if (!readFile(spec->cubinPath(), baseline))
        return fail("cannot read the original cubin " + spec->cubinPath());
    const std::string candidatePath = p.value("--cubin", spec->cubinPath());
    if (!readFile(candidatePath, candidate)) return fail("cannot read " + candidatePath);
    if (backend == "estimate") {
#ifdef SASSX_HAVE_ESTIMATE
        return runEstimateBench(p, spec.value(), baseline, candidate, candidatePath);
#else
        return fail("this build has no estimate backend (it needs the analysis and rewrite layers)");
#endif
    }

    GpuEvaluatorOptions options;
    if (p.has("--gpus")) {
        auto gpus = parseGpuList(p.value("--gpus"));
        if (!gpus) return fail(gpus.message());
        options.pool.gpus = gpus.value();
    }
    options.pool.workerPath = p.value("--worker");
    options.baseline.inputSets = std::stoi(p.value("--input-sets", "3"));
    options.baseline.seed = std::stoull(p.value("--seed", std::to_string(options.baseline.seed)));
    options.baseline.l2Flush = p.has("--l2-flush");
    options.metricsBackend = p.value("--metrics-backend", "auto");
    if (options.metricsBackend != "auto" && options.metricsBackend != "cupti" &&
        options.metricsBackend != "ncu")
        return fail("--metrics-backend must be auto, cupti or ncu");
    auto evaluator = GpuEvaluator::create(options);
    if (!evaluator) return fail(evaluator.message());
    GpuEvaluator& ev = *evaluator.value();
    if (Status s = ev.setBaseline(spec.value(), baseline); !s) return fail(s.message());

    EvalOptions eo;
    eo.plan.screenRounds = std::stoi(p.value("--screen", "10"));
    eo.plan.confirmRounds = std::stoi(p.value("--rounds", "50"));
    eo.plan.incumbentRatio = 1e9; // a bench always wants the full, fresh measurement
    eo.plan.confirmStage = 0;     // ... all of it: no early stop
    const EvalResult r = ev.evaluate(candidate, eo);
    const BaselineInfo& b = ev.baseline();

    std::optional<Result<std::vector<MetricValue>>> metrics;
    if (p.has("--metrics") && r.correct) metrics = ev.metrics(candidate);

    const std::string src = "[" + r.source.label() + "]";
    if (p.has("--json")) {
        json j{{"spec", spec->name},
               {"kernel", spec->kernel},
               {"candidate", candidatePath},
               {"baseline",
                {{"median_us", b.medianUs},
                 {"noise_floor", b.noiseFloor},
                 {"launch_mode", b.launchMode},
                 {"launches_per_sample", b.launchesPerSample},
                 {"source", {{"device", b.source.device}, {"kind", b.source.kind}}}}},
               {"result", toJson(r)}};
        if (metrics && metrics->ok()) {
            EvalResult withMetrics;
            withMetrics.metrics = metrics->value();
            j["metrics"] = toJson(withMetrics)["metrics"];
        } else if (metrics) {
            j["metrics_error"] = metrics->message();
        }
        std::printf("%s\n", j.dump(2).c_str());
        return r.correct ? 0 : 3;
    }

    std::printf("spec         %s (kernel %s, grid %ux%ux%u, block %ux%ux%u, %u B dynamic shared)\n",
                spec->name.c_str(), spec->kernel.c_str(), spec->grid[0], spec->grid[1], spec->grid[2],
                spec->block[0], spec->block[1], spec->block[2], spec->dynamicShared);
    std::printf("baseline     %.3f us/launch  (%s, %d launch(es)/sample)  [%s]\n", b.medianUs,
                b.launchMode.c_str(), b.launchesPerSample, b.source.label().c_str());
    std::printf("noise floor  %.3f%%  (baseline vs itself)  [%s]\n", b.noiseFloor * 100.0,
                b.source.label().c_str());
    std::printf("candidate    %s\n", candidatePath.c_str());
    if (!r.correct) {
        std::printf("correct      NO: %s: %s  %s\n", r.failureKind.c_str(), r.failure.c_str(), src.c_str());
        return 3;
    }
    std::printf("correct      yes (%d input set(s), %s)  %s\n", options.baseline.inputSets,
                spec->tolerance.bitwise() ? "bitwise" : "within tolerance", src.c_str());
    if (r.timing) {
        const TimingFigures& t = *r.timing;
        std::printf("time         %.3f us/launch vs baseline %.3f us/launch  %s\n", t.candidateMedianUs,
                    t.baselineMedianUs, src.c_str());
        std::printf("ratio        %.4f  95%% CI [%.4f, %.4f]  (%s)  over %d interleaved rounds  %s\n",
                    t.ratio.median, t.ratio.low, t.ratio.high, pct(t.ratio.median).c_str(), t.ratio.rounds,
                    src.c_str());
        std::printf(
            "verdict      %s  (rule: interval entirely below 1 and gain above the %.3f%% noise floor)  %s\n",
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
    return 0;
}
