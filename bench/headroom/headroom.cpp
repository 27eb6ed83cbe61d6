// sassx-headroom: how much speed a space of legal variants holds, measured honestly (docs/legality.md: the
// yield space). Screens every variant of a `sassx-cli variants` JSONL file (byte patches against the spec's
// cubin) with a short interleaved timing, then re-measures the best few — and the original as a
// control — with the bench's full confirmation (fresh rounds, 95% interval, noise floor). Only the
// re-measured figures are claims; the screen only ranks.
//
//   sassx-headroom SPEC.json VARIANTS.jsonl [--top 5] [--screen 10] [--rounds 60] [--gpus LIST]
//                  [--limit N] [--json OUT]
#include "core/eval/gpu_evaluator.h"
#include "core/eval/launch_spec.h"
#include "core/session/evaluator_options.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace sassx;
using nlohmann::json;

namespace {

std::string option(int argc, char** argv, const char* name, const std::string& fallback)
{
    for (int i = 3; i + 1 < argc; ++i)
        if (!std::strcmp(argv[i], name)) return argv[i + 1];
    return fallback;
}

std::vector<uint8_t> unhex(const std::string& s)
{
    std::vector<uint8_t> out(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i)
        out[i] = uint8_t(std::stoi(s.substr(2 * i, 2), nullptr, 16));
    return out;
}

struct Candidate
{
    std::string name;
    json edits;
    std::vector<uint8_t> bytes;
    double screen = 0.0; // screened time ratio (candidate / baseline)
    bool correct = false;
    std::string failure;
};

// One full measurement, as `sassx-cli bench` makes it: every confirmation round fresh, no early stop.
json remeasure(eval::Evaluator& ev, const std::vector<uint8_t>& bytes, int screen, int rounds)
{
    eval::EvalOptions o;
    o.plan.screenRounds = screen;
    o.plan.confirmRounds = rounds;
    o.plan.incumbentRatio = 1e9;
    o.plan.confirmStage = 0;
    o.plan.processes = 5; // as bench: the interval covers a re-run in a fresh process
    const eval::EvalResult r = ev.evaluate(eval::Candidate::fromBytes(bytes), o);
    json j{{"correct", r.correct}, {"failure", r.failure}};
    if (r.timing) {
        const auto& t = *r.timing;
        j["speedup"] = 1.0 / t.ratio.median;
        j["speedup_low"] = 1.0 / t.ratio.high;
        j["speedup_high"] = 1.0 / t.ratio.low;
        j["rounds"] = t.ratio.rounds;
        j["noise_floor"] = t.noiseFloor;
        j["verdict"] = eval::verdictName(t.verdict);
        j["baseline_us"] = t.baselineMedianUs;
        j["candidate_us"] = t.candidateMedianUs;
    }
    return j;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: sassx-headroom SPEC.json VARIANTS.jsonl [--top 5] [--screen 10] "
                             "[--rounds 60] [--gpus LIST] [--limit N] [--json OUT]\n");
        return 1;
    }
    auto spec = eval::loadLaunchSpec(argv[1]);
    if (!spec) return std::fprintf(stderr, "sassx-headroom: %s\n", spec.message().c_str()), 1;
    std::ifstream cubinIn(spec->cubinPath(), std::ios::binary);
    const std::vector<uint8_t> original(std::istreambuf_iterator<char>(cubinIn), {});
    if (original.empty())
        return std::fprintf(stderr, "sassx-headroom: cannot read %s\n", spec->cubinPath().c_str()), 1;

    const int top = std::stoi(option(argc, argv, "--top", "5"));
    const int screen = std::stoi(option(argc, argv, "--screen", "10"));
    const int rounds = std::stoi(option(argc, argv, "--rounds", "60"));
    const size_t limit = std::stoul(option(argc, argv, "--limit", "100000"));
    std::vector<Candidate> candidates;
    std::ifstream in(argv[2]);
    for (std::string line; std::getline(in, line) && candidates.size() < limit;) {
        if (line.empty()) continue;
        const json j = json::parse(line);
        Candidate c;
        c.name = j.value("name", "");
        c.edits = j.value("edits", json::array());
        c.bytes = original;
        for (const auto& p : j.at("patches")) {
            const auto off = p.at(0).get<size_t>();
            const auto bytes = unhex(p.at(1).get<std::string>());
            std::copy(bytes.begin(), bytes.end(), c.bytes.begin() + long(off));
        }
        candidates.push_back(std::move(c));
    }

    EvaluatorOptions eo;
    eo.backend = eval::Backend::Gpu;
    if (auto gpus = eval::parseGpuList(option(argc, argv, "--gpus", "0")); gpus) eo.gpus = *gpus;
    auto choice = makeEvaluator(eo);
    if (!choice) return std::fprintf(stderr, "sassx-headroom: %s\n", choice.message().c_str()), 1;
    eval::Evaluator& ev = *choice->evaluator;
    if (Status s = ev.setBaseline(*spec, original); !s)
        return std::fprintf(stderr, "sassx-headroom: %s\n", s.message().c_str()), 1;

    // Screen: a short interleaved timing per variant, no confirmation (ranking only).
    const auto t0 = std::chrono::steady_clock::now();
    eval::EvalOptions so;
    so.plan.screenRounds = screen;
    so.plan.confirmRounds = 0;
    std::vector<eval::Candidate> batch;
    for (const auto& c : candidates)
        batch.push_back(eval::Candidate::fromBytes(c.bytes));
    const auto results = ev.evaluateBatch(batch, so);
    int wrong = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
        candidates[i].correct = results[i].correct;
        candidates[i].failure =
            results[i].failureKind.empty() ? "" : results[i].failureKind + ": " + results[i].failure;
        candidates[i].screen = results[i].timing ? results[i].timing->ratio.median : 1e9;
        wrong += !results[i].correct;
    }
    const double screenSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<size_t> order(candidates.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (candidates[a].correct != candidates[b].correct) return candidates[a].correct;
        return candidates[a].screen < candidates[b].screen;
    });

    json out{{"spec", spec->name},
             {"kernel", spec->kernel},
             {"device", ev.baseline().source.device},
             {"variants", candidates.size()},
             {"incorrect", wrong},
             {"screen_rounds", screen},
             {"screen_seconds", screenSeconds},
             {"noise_floor", ev.baseline().noiseFloor},
             {"control_original", remeasure(ev, original, screen, rounds)},
             {"best", json::array()},
             {"screen", json::array()}};
    for (size_t k = 0; k < order.size(); ++k) {
        const Candidate& c = candidates[order[k]];
        out["screen"].push_back({{"name", c.name},
                                 {"screen_speedup", c.screen > 0 ? 1.0 / c.screen : 0.0},
                                 {"correct", c.correct},
                                 {"failure", c.failure}});
        if (int(k) < top && c.correct) {
            json r = remeasure(ev, c.bytes, screen, rounds);
            r["name"] = c.name;
            r["edits"] = c.edits;
            r["screen_speedup"] = 1.0 / c.screen;
            out["best"].push_back(r);
            std::fprintf(stderr, "%-16s screen %.4fx  re-measured %.4fx [%.4f, %.4f] %s\n", c.name.c_str(),
                         1.0 / c.screen, r.value("speedup", 0.0), r.value("speedup_low", 0.0),
                         r.value("speedup_high", 0.0), r.value("verdict", std::string()).c_str());
        }
    }
    const std::string path = option(argc, argv, "--json", "");
    if (!path.empty()) std::ofstream(path) << out.dump(1) << "\n";
    std::printf("%s: %zu variants, %d incorrect, screen %.1f s, noise floor %.3f%%\n", spec->name.c_str(),
                candidates.size(), wrong, screenSeconds, 100.0 * ev.baseline().noiseFloor);
    return 0;
}
