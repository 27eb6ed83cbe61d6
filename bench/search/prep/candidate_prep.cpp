// sassx-candidate-prep: what preparing one candidate for the GPU costs on the CPU of the process that
// runs the search, per kernel: writing the tuned cubin of a schedule of a few legal yield flips
// (KernelWorkspace::write), and framing it as a worker request (base64 and JSON, as
// GpuEvaluator::evaluateBatch does with the candidate and its reference). The search prepares a batch's
// candidates one after another before the pool measures them, so this cost does not shrink with more
// GPUs (docs/evaluator.md, "Requests").
//
// usage: sassx-candidate-prep SPEC.json [--n 200] [--edits 8]
#include "core/eval/launch_spec.h"
#include "core/eval/protocol.h"
#include "core/session/workspace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

using namespace sassx;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: sassx-candidate-prep SPEC.json [--n N] [--edits K]\n");
        return 2;
    }
    int n = 200, edits = 8;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--n")
            n = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--edits")
            edits = std::max(1, std::atoi(argv[i + 1]));
        else {
            std::fprintf(stderr, "sassx-candidate-prep: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    auto spec = eval::loadLaunchSpec(argv[1]);
    if (!spec) return std::fprintf(stderr, "sassx-candidate-prep: %s\n", spec.message().c_str()), 1;
    auto ws = Workspace::open(spec->cubinPath());
    if (!ws) return std::fprintf(stderr, "sassx-candidate-prep: %s\n", ws.message().c_str()), 1;
    auto k = (*ws)->kernel(spec->kernel);
    if (!k) return std::fprintf(stderr, "sassx-candidate-prep: %s\n", k.message().c_str()), 1;
    const KernelWorkspace& kw = **k;
    kw.checker().controlRules().primeEncodings();
    const Schedule identity = Schedule::identity(kw.analysis());
    const std::vector<Edit> flips = kw.checker().legalControlEdits(identity, ControlSpace::Yield);
    if (flips.empty()) return std::fprintf(stderr, "sassx-candidate-prep: no legal yield flip\n"), 1;
    std::mt19937_64 rng(1);
    std::vector<Schedule> schedules;
    for (int i = 0; i < n; ++i) {
        std::vector<Edit> chosen;
        for (int e = 0; e < edits; ++e)
            chosen.push_back(flips[std::uniform_int_distribution<size_t>(0, flips.size() - 1)(rng)]);
        auto s = kw.schedule(chosen);
        if (s) schedules.push_back(std::move(*s));
    }
    double writeMs = 0, frameMs = 0;
    size_t bytes = 0, refused = 0;
    const auto original = kw.cubin().bytes();
    for (const Schedule& s : schedules) {
        const auto t0 = Clock::now();
        auto cubin = kw.write(s);
        const auto t1 = Clock::now();
        if (!cubin) {
            ++refused;
            continue;
        }
        eval::protocol::EvaluateOptions po;
        nlohmann::json request = eval::protocol::makeEvaluate(0, *cubin, po);
        eval::protocol::setReference(request, original);
        const std::string line = request.dump();
        const auto t2 = Clock::now();
        writeMs += std::chrono::duration<double, std::milli>(t1 - t0).count();
        frameMs += std::chrono::duration<double, std::milli>(t2 - t1).count();
        bytes += line.size();
    }
    const double done = double(schedules.size() - refused);
    std::printf("{\"kernel\": \"%s\", \"instructions\": %zu, \"candidates\": %.0f, \"refused\": %zu, "
                "\"edits\": %d, \"write_ms\": %.3f, \"frame_ms\": %.3f, \"request_bytes\": %.0f}\n",
                kw.name().c_str(), kw.analysis().listing.instructions.size(), done, refused, edits,
                writeMs / done, frameMs / done, double(bytes) / done);
    return 0;
}
