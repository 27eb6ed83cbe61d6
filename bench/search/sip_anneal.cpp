// SIP's method as the comparison for sassx's searches (docs/search.md; arXiv 2403.16863 in ../shared/seeds is
// the source of the schedule): simulated annealing from ptxas' order, T0 0.4, ×(1−0.003) per step, stop
// at T < 0.05, 1,000 steps or the time budget, one proposal per step = SIP's unchecked rule (swap a
// memory instruction with a neighbour in its block, no legality check: core/search/random_variants.h),
// Metropolis acceptance on the Δ speed-up, a variant that fails (wrong output, fault) rejected. Measured
// with sassx's own harness (the same evaluator, screening and confirmation as `sassx-cli search`), so
// the comparison is of the methods, not of the timers. Never a search space of sassx: a bench mode.
//
// usage: sassx-sip-anneal SPEC.json --budget-time SECONDS [--gpus LIST] [--seed S] --json OUT.json
#include "core/eval/gpu_evaluator.h"
#include "core/search/random_variants.h"
#include "core/search/search_state.h"
#include "core/session/search_evaluator.h"
#include "core/session/search_run.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

using namespace sassx;

namespace {

struct Options
{
    std::string spec, json, gpus;
    double seconds = 60;
    uint64_t seed = 1;
};

bool parse(int argc, char** argv, Options& o)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--budget-time")
            o.seconds = std::atof(next().c_str());
        else if (a == "--gpus")
            o.gpus = next();
        else if (a == "--seed")
            o.seed = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--json")
            o.json = next();
        else if (o.spec.empty() && a[0] != '-')
            o.spec = a;
        else
            return false;
    }
    return !o.spec.empty() && !o.json.empty() && o.seconds > 0;
}

} // namespace

int main(int argc, char** argv)
{
    Options opt;
    if (!parse(argc, argv, opt)) {
        std::fprintf(
            stderr,
            "usage: sassx-sip-anneal SPEC.json --budget-time SECONDS [--gpus LIST] [--seed S] --json OUT\n");
        return 1;
    }
    WorkspaceOptions wo;
    wo.evaluator.backend = eval::Backend::Gpu;
    if (!opt.gpus.empty()) {
        auto g = eval::parseGpuList(opt.gpus);
        if (!g) return std::fprintf(stderr, "sassx-sip-anneal: %s\n", g.message().c_str()), 1;
        wo.evaluator.gpus = *g;
    }
    auto run = openSearchRun(opt.spec, wo);
    if (!run) return std::fprintf(stderr, "sassx-sip-anneal: %s\n", run.message().c_str()), 1;
    const KernelWorkspace& k = (*run)->kernel();
    // The run's own evaluator, prepared against the original by openSearchRun.
    SearchEvaluator evaluator((*run)->kernelEvaluator());

    std::mt19937_64 rng(opt.seed);
    Schedule incumbent = Schedule::identity(k.analysis()), best = incumbent;
    double incSpeedup = 1.0, bestSpeedup = 1.0, t = 0.4;
    int steps = 0, evaluations = 0, bestStep = -1;
    std::map<std::string, int> failures;
    nlohmann::json history = nlohmann::json::array();
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    while (t >= 0.05 && steps < 1000 && elapsed() < opt.seconds) {
        ++steps;
        Schedule candidate = incumbent;
        if (sipRuleEdits(k.analysis(), rng, 1, candidate).empty()) continue;
        auto r = evaluator.evaluate({candidate}, search::EvalRequest{1.0 / incSpeedup, false}).at(0);
        ++evaluations;
        const search::SpeedupFigures f = search::speedupFigures(r);
        bool accepted = false;
        if (!f.ok) {
            ++failures[f.failureKind];
        } else {
            const double delta = f.speedup - incSpeedup;
            accepted = delta >= 0 || std::uniform_real_distribution<double>(0, 1)(rng) < std::exp(delta / t);
            if (accepted) {
                incumbent = candidate;
                incSpeedup = f.speedup;
            }
            // SIP keeps the best figure it saw; we keep it only when it is reportable (confirmed).
            if (f.reportable() && f.clearlyAbove(1.0) && f.speedup > bestSpeedup) {
                best = candidate;
                bestSpeedup = f.speedup;
                bestStep = evaluations - 1;
            }
        }
        history.push_back({{"step", evaluations - 1},
                           {"seconds", elapsed()},
                           {"ok", f.ok},
                           {"failure", f.ok ? "" : f.failureKind + ": " + f.failure},
                           {"speedup", f.speedup},
                           {"accepted", accepted}});
        t *= 1.0 - 0.003;
    }
    nlohmann::json final{{"speedup", 1.0}, {"note", "nothing beat the original"}};
    if (bestStep >= 0) {
        search::EvalRequest report{1.0, true};
        report.report = true; // the final figure, as a search run takes it
        auto r = evaluator.evaluate({best}, report).at(0);
        const search::SpeedupFigures f = search::speedupFigures(r);
        final = {{"ok", f.ok},
                 {"speedup", f.speedup},
                 {"low", f.low},
                 {"high", f.high},
                 {"rounds", f.rounds},
                 {"noise_floor", f.noiseFloor},
                 {"failure", f.failureKind}};
    }
    const auto* b = (*run)->kernelEvaluator().baseline();
    nlohmann::json out{
        {"method", "sip: unchecked neighbour swaps of memory instructions, annealing T0 0.4 x0.997"},
        {"kernel", k.name()},
        {"device", b ? b->source.device : ""},
        {"noise_floor", b ? b->noiseFloor : 0.0},
        {"budget_seconds", opt.seconds},
        {"seconds", elapsed()},
        {"steps", steps},
        {"evaluations", evaluations},
        {"failures", failures},
        {"failed",
         [&] {
             int n = 0;
             for (auto& [_, c] : failures)
                 n += c;
             return n;
         }()},
        {"best_step", bestStep},
        {"best_search_speedup", bestSpeedup},
        {"best_final", final},
        {"end_temperature", t},
        {"history", history}};
    std::ofstream(opt.json) << out.dump(1) << "\n";
    std::printf("sip %s: %d evaluations, %d failed, best %.4fx\n", k.name().c_str(), evaluations,
                out["failed"].get<int>(), bestSpeedup);
    return 0;
}
