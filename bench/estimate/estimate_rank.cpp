// sassx-estimate-rank: estimated vs measured time of the variants `sassx-cli variants` wrote.
//   estimate SPEC VARIANTS.jsonl [--json OUT]
//       the estimate backend's cycles for the original and every variant (CPU, needs nvdisasm).
//   measure SPEC VARIANTS.jsonl [--json OUT] [--screen N] [--input-sets K] [--budget-s S]
//       every variant measured against the original through the GPU worker (interleaved rounds,
//       no confirmation: a ranking needs every candidate measured alike); stops at the budget.
// Variants are byte patches against the spec's cubin, so both modes rebuild the same bytes.
#include "core/estimate/estimate_evaluator.h"
#include "core/eval/gpu_evaluator.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

std::string option(int argc, char** argv, const char* name, const std::string& fallback)
{
    for (int i = 4; i + 1 < argc; ++i)
        if (!std::strcmp(argv[i], name)) return argv[i + 1];
    return fallback;
}

struct VariantBytes
{
    std::string name;
    std::vector<uint8_t> bytes;
};

Result<std::vector<VariantBytes>> loadVariants(const std::string& path, const std::vector<uint8_t>& original)
{
    std::ifstream in(path);
    if (!in) return makeError("cannot read " + path);
    std::vector<VariantBytes> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.contains("patches")) return makeError(path + ": a line is not a variant");
        VariantBytes v{j.value("name", ""), original};
        for (const auto& p : j["patches"]) {
            const size_t off = p[0].get<size_t>();
            const std::string hex = p[1].get<std::string>();
            if (off + hex.size() / 2 > v.bytes.size())
                return makeError(v.name + ": patch past the cubin's end");
            for (size_t i = 0; i + 1 < hex.size(); i += 2)
                v.bytes[off + i / 2] = uint8_t(std::stoi(hex.substr(i, 2), nullptr, 16));
        }
        out.push_back(std::move(v));
    }
    return out;
}

void write(const json& j, const std::string& path)
{
    if (!path.empty()) std::ofstream(path) << j.dump(1) << "\n";
}

int estimateMode(const LaunchSpec& spec, const std::vector<uint8_t>& cubin,
                 const std::vector<VariantBytes>& vs, const std::string& out)
{
    EstimateEvaluator ev;
    if (Status s = ev.setBaseline(spec, cubin); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
    }
    json list = json::array();
    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& v : vs) {
        auto e = ev.estimateCubin(v.bytes);
        if (e)
            list.push_back({{"name", v.name},
                            {"cycles", e->cycles},
                            {"us", e->microseconds},
                            {"ratio", e->cycles / ev.baselineEstimate().cycles}});
        else
            list.push_back({{"name", v.name}, {"error", e.message()}});
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    json j{{"spec", spec.name},
           {"kernel", spec.kernel},
           {"source", "estimate"},
           {"model", ev.params()->source},
           {"baseline", ev.baseline().raw},
           {"variants", list},
           {"seconds_per_estimate", vs.empty() ? 0.0 : s / double(vs.size())}};
    std::printf("%s: baseline %.0f cycles [estimate], %zu variants, %.1f ms each\n", spec.name.c_str(),
                ev.baselineEstimate().cycles, vs.size(), 1000 * s / std::max<size_t>(1, vs.size()));
    write(j, out);
    return 0;
}

int measureMode(int argc, char** argv, const LaunchSpec& spec, const std::vector<uint8_t>& cubin,
                const std::vector<VariantBytes>& vs, const std::string& out)
{
    const auto t0 = std::chrono::steady_clock::now();
    const double budget = std::stod(option(argc, argv, "--budget-s", "60"));
    GpuEvaluatorOptions o;
    o.baseline.inputSets = std::stoi(option(argc, argv, "--input-sets", "1"));
    o.baseline.noiseRounds = 20;
    o.baseline.noiseTwins = 0;
    auto e = GpuEvaluator::create(o);
    if (!e) {
        std::fprintf(stderr, "%s\n", e.message().c_str());
        return 1;
    }
    GpuEvaluator& ev = *e.value();
    if (Status s = ev.setBaseline(spec, cubin); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
    }
    EvalOptions eo;
    eo.plan.screenRounds = std::stoi(option(argc, argv, "--screen", "20"));
    eo.plan.confirmRounds = 0;
    json list = json::array();
    for (const auto& v : vs) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > budget) break;
        EvalResult r = ev.evaluate(Candidate::fromBytes(v.bytes), eo);
        json x{{"name", v.name}, {"correct", r.correct}};
        if (!r.failureKind.empty()) x["failure"] = r.failureKind + ": " + r.failure;
        if (r.timing)
            x.update({{"ratio", r.timing->ratio.median},
                      {"low", r.timing->ratio.low},
                      {"high", r.timing->ratio.high},
                      {"rounds", r.timing->ratio.rounds},
                      {"us", r.timing->candidateMedianUs},
                      {"baseline_us", r.timing->baselineMedianUs}});
        list.push_back(x);
        // Partial results survive a timeout (rmsnorm's first device run came back empty).
        if (list.size() % 10 == 0) write({{"spec", spec.name}, {"partial", true}, {"variants", list}}, out);
    }
    const BaselineInfo& b = ev.baseline();
    json j{{"spec", spec.name},
           {"kernel", spec.kernel},
           {"baseline",
            {{"median_us", b.medianUs},
             {"noise_floor", b.noiseFloor},
             {"launch_mode", launchModeName(b.launchMode)},
             {"launches_per_sample", b.launchesPerSample},
             {"device", b.source.device}}},
           {"source", toJson(b.source)},
           {"screen_rounds", eo.plan.screenRounds},
           {"variants", list},
           {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
    std::printf("%s: baseline %.2f us [%s], noise %.3f%%, measured %zu/%zu variants in %.0f s\n",
                spec.name.c_str(), b.medianUs, b.source.label().c_str(), 100 * b.noiseFloor, list.size(),
                vs.size(), j["seconds"].get<double>());
    write(j, out);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 4 || (std::strcmp(argv[1], "estimate") && std::strcmp(argv[1], "measure"))) {
        std::fprintf(stderr,
                     "usage: sassx-estimate-rank estimate|measure SPEC VARIANTS.jsonl [--json OUT] ...\n");
        return 1;
    }
    auto spec = loadLaunchSpec(argv[2]);
    if (!spec) {
        std::fprintf(stderr, "%s\n", spec.message().c_str());
        return 1;
    }
    std::ifstream in(spec->cubinPath(), std::ios::binary);
    const std::vector<uint8_t> cubin(std::istreambuf_iterator<char>(in), {});
    if (cubin.empty()) {
        std::fprintf(stderr, "cannot read %s\n", spec->cubinPath().c_str());
        return 1;
    }
    auto vs = loadVariants(argv[3], cubin);
    if (!vs) {
        std::fprintf(stderr, "%s\n", vs.message().c_str());
        return 1;
    }
    const std::string out = option(argc, argv, "--json", "");
    if (!std::strcmp(argv[1], "estimate")) return estimateMode(spec.value(), cubin, vs.value(), out);
    return measureMode(argc, argv, spec.value(), cubin, vs.value(), out);
}
