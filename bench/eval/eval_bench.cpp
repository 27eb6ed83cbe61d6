// sassx-eval-bench: the evaluator's device benchmarks (bench/eval/run_device.sh runs them).
//   throughput SPEC [--n N] [--gpus LIST] [--json OUT]
//       evaluations per second with the adaptive plan, the noise floor, and how often an identical
//       candidate is wrongly called "faster" (it should be ~never).
//   faults SPEC --broken DIR [--n 100] [--timeout-ms T] [--json OUT]
//       N broken candidates cycled from DIR/*.cubin (out-of-bounds store, infinite loop, wrong
//       name, ...): every one must come back failed with a reason and the caller must survive.
//   metrics SPEC [--json OUT]
//       the baseline's Nsight Compute metrics through the worker (for the ncu cross-check).
#include "core/eval/gpu_evaluator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<uint8_t> readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string option(int argc, char** argv, const char* name, const std::string& fallback)
{
    for (int i = 2; i + 1 < argc; ++i)
        if (!std::strcmp(argv[i], name)) return argv[i + 1];
    return fallback;
}

double seconds(Clock::duration d)
{
    return std::chrono::duration<double>(d).count();
}

void write(const json& j, const std::string& path)
{
    std::printf("%s\n", j.dump(2).c_str());
    if (!path.empty()) std::ofstream(path) << j.dump(2) << "\n";
}

std::unique_ptr<GpuEvaluator> open(int argc, char** argv, const LaunchSpec& spec,
                                   const std::vector<uint8_t>& cubin, bool precheck, int timeoutMs)
{
    GpuEvaluatorOptions o;
    o.precheck = precheck;
    if (!precheck) o.timeoutSlack = std::chrono::milliseconds(0); // the fault run: deadlines as given
    o.pool.requestTimeout = std::chrono::milliseconds(timeoutMs);
    auto gpus = parseGpuList(option(argc, argv, "--gpus", "0"));
    if (!gpus) {
        std::fprintf(stderr, "%s\n", gpus.message().c_str());
        return nullptr;
    }
    o.pool.gpus = gpus.value();
    auto metricsBackend = parseEnumOrError(
        kMetricsBackendNames, option(argc, argv, "--metrics-backend", "auto"), "--metrics-backend");
    if (!metricsBackend) {
        std::fprintf(stderr, "%s\n", metricsBackend.message().c_str());
        return nullptr;
    }
    o.metricsBackend = *metricsBackend;
    auto e = GpuEvaluator::create(o);
    if (!e) {
        std::fprintf(stderr, "sassx-eval-bench: %s\n", e.message().c_str());
        return nullptr;
    }
    if (Status s = e.value()->setBaseline(spec, cubin); !s) {
        std::fprintf(stderr, "sassx-eval-bench: %s\n", s.message().c_str());
        return nullptr;
    }
    return std::move(e.value());
}

int throughput(int argc, char** argv, const LaunchSpec& spec, const std::vector<uint8_t>& cubin)
{
    const int n = std::stoi(option(argc, argv, "--n", "100"));
    auto ev = open(argc, argv, spec, cubin, true, 60000);
    if (!ev) return 1;
    json out{{"spec", spec.name}, {"kernel", spec.kernel}, {"baseline", ev->baseline().raw}};

    // Two regimes: screen only (a search proposing candidates no better than the incumbent), and
    // the default plan against the original (incumbent 1.0: about half of identical candidates
    // screen below 1 by chance and get the confirmation rounds).
    for (const double incumbent : {0.0, 1.0}) {
        EvalOptions o;
        o.plan.incumbentRatio = incumbent;
        std::vector<Candidate> batch(size_t(n), Candidate::fromBytes(cubin));
        const auto t0 = Clock::now();
        const auto results = ev->evaluateBatch(batch, o);
        const double wall = seconds(Clock::now() - t0);
        int correct = 0, confirmed = 0, faster = 0, slower = 0, stoppedEarly = 0, rounds = 0;
        std::vector<double> ratios;
        std::map<std::string, double> phases;
        for (const auto& r : results) {
            correct += r.ok();
            for (const auto& [name, ms] : r.phaseMs)
                phases[name] += ms / n;
            if (!r.timing) continue;
            confirmed += r.timing->confirmed;
            stoppedEarly += r.timing->stoppedEarly;
            rounds += r.timing->screenRounds + (r.timing->confirmed ? r.timing->ratio.rounds : 0);
            faster += r.timing->verdict == Verdict::Faster;
            slower += r.timing->verdict == Verdict::Slower;
            ratios.push_back(r.timing->ratio.median);
        }
        std::sort(ratios.begin(), ratios.end());
        json regime{{"candidates", n},
                    {"incumbent_ratio", incumbent},
                    {"wall_s", wall},
                    {"evaluations_per_s", n / wall},
                    {"correct", correct},
                    {"confirmed", confirmed},
                    {"false_faster", faster},
                    {"false_slower", slower},
                    {"confirm_stopped_early", stoppedEarly},
                    {"rounds_per_candidate", double(rounds) / n},
                    {"worker_phase_ms_mean", phases}};
        if (!ratios.empty())
            regime["identical_ratio_p05_p50_p95"] = {ratios[ratios.size() / 20], ratios[ratios.size() / 2],
                                                     ratios[ratios.size() * 19 / 20]};
        out[incumbent == 0.0 ? "screen_only" : "adaptive"] = regime;
    }
    out["source"] = {{"device", ev->baseline().source.device}, {"kind", "measured"}};
    write(out, option(argc, argv, "--json", ""));
    return 0;
}

int faults(int argc, char** argv, const LaunchSpec& spec, const std::vector<uint8_t>& cubin)
{
    const int n = std::stoi(option(argc, argv, "--n", "100"));
    const std::string dir = option(argc, argv, "--broken", "");
    std::vector<std::pair<std::string, std::vector<uint8_t>>> broken;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".cubin")
            broken.push_back({e.path().stem().string(), readFile(e.path().string())});
    std::sort(broken.begin(), broken.end());
    broken.push_back({"garbage_bytes", std::vector<uint8_t>(8192, 0x5a)});
    if (broken.size() < 2) {
        std::fprintf(stderr, "no broken cubins in %s\n", dir.c_str());
        return 1;
    }
    // precheck off: every candidate goes to a worker, so the worker's own isolation is what is tested.
    auto ev = open(argc, argv, spec, cubin, false, std::stoi(option(argc, argv, "--timeout-ms", "3000")));
    if (!ev) return 1;
    std::map<std::string, std::map<std::string, int>> byVariant;
    int reportedFailed = 0, wronglyPassed = 0;
    const auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
        const auto& [name, bytes] = broken[size_t(i) % broken.size()];
        const EvalResult r = ev->evaluate(Candidate::fromBytes(bytes));
        byVariant[name][r.ok() ? std::string("passed") : r.failureKind]++;
        if (r.ok())
            ++wronglyPassed;
        else
            ++reportedFailed;
    }
    const double wall = seconds(Clock::now() - t0);
    // The pool must still work after all that.
    const EvalResult after = ev->evaluate(Candidate::fromBytes(cubin));
    json out{{"spec", spec.name},
             {"candidates", n},
             {"reported_failed", reportedFailed},
             {"wrongly_passed", wronglyPassed},
             {"caller_crashes", 0},
             {"worker_restarts", ev->pool().restarts()},
             {"wall_s", wall},
             {"baseline_ok_afterwards", after.ok()},
             {"by_variant", byVariant},
             {"source", {{"device", ev->baseline().source.device}, {"kind", "measured"}}}};
    write(out, option(argc, argv, "--json", ""));
    return wronglyPassed == 0 && after.ok() ? 0 : 1;
}

int metrics(int argc, char** argv, const LaunchSpec& spec, const std::vector<uint8_t>& cubin)
{
    auto ev = open(argc, argv, spec, cubin, true, 60000);
    if (!ev) return 1;
    const auto t0 = Clock::now();
    auto m = ev->metrics({});
    const double wall = seconds(Clock::now() - t0);
    json out{{"spec", spec.name},
             {"metrics_wall_s", wall},
             {"kernel", spec.kernel},
             {"baseline_median_us", ev->baseline().medianUs},
             {"baseline_source", {{"device", ev->baseline().source.device}, {"kind", "measured"}}}};
    if (!m) {
        out["error"] = m.message();
        write(out, option(argc, argv, "--json", ""));
        return 1;
    }
    EvalResult holder;
    holder.metrics = m.value();
    out["metrics"] = toJson(holder)["metrics"];
    if (!m->empty()) out["metrics_source"] = toJson(m->front().source);
    write(out, option(argc, argv, "--json", ""));
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: sassx-eval-bench throughput|faults|metrics SPEC.json [options]\n");
        return 2;
    }
    auto spec = loadLaunchSpec(argv[2]);
    if (!spec) {
        std::fprintf(stderr, "%s\n", spec.message().c_str());
        return 1;
    }
    const std::string cubinPath = option(argc, argv, "--cubin", spec->cubinPath());
    const std::vector<uint8_t> cubin = readFile(cubinPath);
    if (cubin.empty()) {
        std::fprintf(stderr, "cannot read %s\n", cubinPath.c_str());
        return 1;
    }
    if (!std::strcmp(argv[1], "throughput")) return throughput(argc, argv, spec.value(), cubin);
    if (!std::strcmp(argv[1], "faults")) return faults(argc, argv, spec.value(), cubin);
    if (!std::strcmp(argv[1], "metrics")) return metrics(argc, argv, spec.value(), cubin);
    std::fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}
