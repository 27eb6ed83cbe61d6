// GpuSession::loadBaseline: the protocol steps (read the request, answer with the figures or the first
// failure) around the measuring policy (reference outputs and the spec's soundness checks, the launch
// mode, the noise floor), each policy step a function that returns data or a Failure.
#include "core/eval/compare.h"
#include "core/eval/gpu_session.h"
#include "core/eval/sha256.h"

#include <algorithm>
#include <cmath>

namespace sassx::eval {

using nlohmann::json;

namespace {

// A refusal of the request or its spec, before or after anything ran: an "error" response.
Failure refusal(std::string message)
{
    return {"error", failure::kError, std::move(message)};
}

json failureResponse(const json& request, const Failure& f)
{
    return protocol::makeErrorResponse(request, f.status, f.kind, f.message);
}

struct BaselineRequest
{
    LaunchSpec spec;
    std::vector<uint8_t> cubin;
    protocol::BaselineOptions options;
    double inheritedNoiseFloor = 0.0; // a restarted worker's floor, from the pool (noise rounds 0)
};

Result<BaselineRequest> readBaselineRequest(const json& request)
{
    if (!request.contains("spec")) return makeError("load_baseline needs a \"spec\"");
    auto spec = parseLaunchSpec(request.at("spec"));
    if (!spec) return spec.error();
    auto cubin = protocol::cubinFromRequest(request);
    if (!cubin) return cubin.error();
    // baselineOptionsFromJson keeps the default for a graph use it cannot read: refuse it here instead.
    if (request.contains("graph")) {
        const json& g = request.at("graph");
        auto graph =
            parseEnumOrError(kGraphUseNames, g.is_string() ? g.get<std::string>() : g.dump(), "graph");
        if (!graph) return graph.error();
    }
    return BaselineRequest{std::move(spec.value()), std::move(cubin.value()),
                           protocol::baselineOptionsFromJson(request), request.value("noise_floor", 0.0)};
}

} // namespace

json GpuSession::noiseJson(const NoiseFigures& n)
{
    return {{"ratio_median", n.self.median},
            {"ratio_ci95", {n.self.low, n.self.high}},
            {"rounds", n.self.rounds},
            {"twin_screen_medians", n.twinMedians},
            {"twin_robust_sigma", n.twinRobustSigma},
            {"noise_floor", n.floor}};
}

json GpuSession::loadBaseline(const json& request)
{
    auto read = readBaselineRequest(request);
    if (!read) return failureResponse(request, refusal(read.message()));
    BaselineRequest& r = read.value();
    if (auto f = setUpBaseline(r.spec, std::move(r.cubin), r.options)) return failureResponse(request, *f);
    if (auto f = recordReferences(r.options.inputSets)) return failureResponse(request, *f);
    if (auto f = checkReproducible()) return failureResponse(request, *f);
    json programReference;
    if (auto f = compareProgramReference(programReference)) return failureResponse(request, *f);
    double single = 0.0;
    if (auto f = chooseLaunchMode(r.options, single)) return failureResponse(request, *f);
    m_hasBaseline = true;

    json resp = protocol::makeResponse(request, "ok");
    resp["source"] = source();
    resp["device"] = {{"name", m_ctx->info().name},
                      {"sm", m_ctx->info().sm},
                      {"multiprocessors", m_ctx->info().multiprocessors},
                      {"l2_bytes", m_ctx->info().l2Bytes}};
    resp["launch_mode"] = launchModeName(m_useGraph ? LaunchMode::Graph : LaunchMode::Events);
    resp["launches_per_sample"] = m_launchesPerSample;
    resp["single_launch_us"] = single;
    if (!programReference.is_null()) resp["reference"] = std::move(programReference);
    if (r.options.noiseRounds > 0) {
        NoiseFigures noise;
        if (auto f = measureNoise(r.options, noise)) return failureResponse(request, *f);
        m_noiseFloor = noise.floor;
        m_baselineUs = noise.baselineUs;
        resp["noise"] = noiseJson(noise);
    } else {
        m_noiseFloor = r.inheritedNoiseFloor;
        m_baselineUs = single;
    }
    resp["noise_floor"] = m_noiseFloor;
    resp["baseline_median_us"] = m_baselineUs;
    return resp;
}

std::optional<Failure> GpuSession::setUpBaseline(const LaunchSpec& spec, std::vector<uint8_t> cubin,
                                                 const protocol::BaselineOptions& options)
{
    if (spec.dynamicShared > uint32_t(m_ctx->info().maxSharedOptin) && m_ctx->info().maxSharedOptin > 0)
        return refusal("the spec asks for " + std::to_string(spec.dynamicShared) +
                       " bytes of dynamic shared memory; this GPU allows " +
                       std::to_string(m_ctx->info().maxSharedOptin));
    if (auto f = setUp(spec, options)) return f;
    m_baselineCubin = std::move(cubin);
    if (auto f = m_ctx->load(m_baselineCubin, m_baseline)) {
        f->message = "baseline: " + f->message;
        return f;
    }
    return std::nullopt;
}

std::optional<Failure> GpuSession::recordReferences(int inputSets)
{
    m_reference.assign(size_t(inputSets), {});
    for (int k = 0; k < inputSets; ++k) {
        if (auto f = runSet(m_baseline, k, m_reference[size_t(k)])) {
            f->message = "baseline: " + f->message;
            return f;
        }
        // A device copy of the reference for the on-device comparison of candidates.
        std::vector<cu::DevicePtr> onDevice;
        for (size_t c = 0; c < m_compared.size(); ++c) {
            const size_t bytes = m_spec.slot(size_t(m_compared[c])).bufferBytes();
            cu::DevicePtr copy = 0;
            if (auto f = m_ctx->alloc(bytes, copy)) return f;
            onDevice.push_back(copy);
            if (auto f = m_ctx->copy(copy, m_work[size_t(m_compared[c])], bytes)) return f;
        }
        m_referenceOnDevice.push_back(std::move(onDevice));
        // A reference with NaNs would accept any candidate there: the spec is unsound, not the kernel.
        for (size_t c = 0; c < m_compared.size(); ++c) {
            const ParamSpec& p = m_spec.slot(size_t(m_compared[c]));
            if (uint64_t nans = countNaN(p.dtype, m_reference[size_t(k)][c]))
                return refusal("baseline output " + p.name + " has " + std::to_string(nans) +
                               " NaN element(s) on input set " + std::to_string(k) +
                               ": the original leaves them unwritten (poison) or the inputs make NaN; "
                               "fix the spec (count, init) before evaluating candidates");
        }
    }
    return std::nullopt;
}

std::optional<Failure> GpuSession::checkReproducible()
{
    std::vector<std::vector<uint8_t>> again;
    if (auto f = runSet(m_baseline, 0, again)) return f;
    for (size_t c = 0; c < m_compared.size(); ++c) {
        const ParamSpec& p = m_spec.slot(size_t(m_compared[c]));
        const CompareResult r = compareBuffers(p.dtype, m_reference[0][c], again[c], m_spec.tolerance);
        if (!r.pass)
            return refusal("the baseline is not reproducible on identical inputs (" + r.describe(p.name) +
                           "); an order-dependent kernel needs a \"tolerance\" in its spec");
    }
    return std::nullopt;
}

std::optional<Failure> GpuSession::compareProgramReference(json& out)
{
    out = nullptr;
    std::vector<int> roots;
    for (int i : allocatedParams(m_spec))
        if (!m_spec.slot(size_t(i)).referenceSha256.empty()) roots.push_back(i);
    if (roots.empty()) return std::nullopt;
    if (auto f = prepareSet(0)) return f;
    // The program's memory before its launch: outputs start from zeros (the capture calls output only
    // memory that held zeros), not from the poison candidates are checked with, which would show in
    // any byte of the allocation the kernel does not write.
    for (int i : allocatedParams(m_spec)) {
        const ParamSpec& p = m_spec.slot(size_t(i));
        if (!p.initialised())
            if (auto f = m_ctx->fill(m_work[size_t(i)], 0, p.bufferBytes())) return f;
    }
    if (auto f = m_ctx->launch(m_baseline)) return f;
    if (auto f = m_ctx->synchronize("kernel execution")) return f;
    json matched = json::array(), differs = json::array();
    std::vector<uint8_t> bytes;
    for (int i : roots) {
        const ParamSpec& p = m_spec.slot(size_t(i));
        bytes.resize(p.bufferBytes());
        if (auto f = m_ctx->check(m_ctx->driver().memcpyDtoH(bytes.data(), m_work[size_t(i)], bytes.size()),
                                  "cuMemcpyDtoH (program reference)"))
            return f;
        (sha256Hex(bytes.data(), bytes.size()) == p.referenceSha256 ? matched : differs).push_back(p.name);
    }
    out = {{"matched", std::move(matched)}, {"differs", std::move(differs)}};
    return std::nullopt;
}

std::optional<Failure> GpuSession::chooseLaunchMode(const protocol::BaselineOptions& options,
                                                    double& singleUs)
{
    // Time one launch, then pick graph replay for short kernels and enough launches per sample that one
    // sample lasts minSampleUs (event resolution is ~0.5 us).
    for (int i = 0; i < options.warmup; ++i)
        if (auto f = m_ctx->launch(m_baseline)) return f;
    if (auto f = m_ctx->timeSample(m_baseline, 1, false, options.l2Flush, singleUs)) return f;
    m_useGraph =
        options.graph == GraphUse::On || (options.graph == GraphUse::Auto && singleUs < options.graphBelowUs);
    m_launchesPerSample = int(std::clamp(std::ceil(options.minSampleUs / std::max(singleUs, 0.5)), 1.0,
                                         m_useGraph ? 2000.0 : 200.0));
    return prepareTiming(m_baseline);
}

std::optional<Failure> GpuSession::measureNoise(const protocol::BaselineOptions& options, NoiseFigures& noise)
{
    // Baseline against itself, loaded as a second module so that it goes through the same path a
    // candidate does: its spread is the noise floor every verdict must clear.
    KernelHandle twin;
    if (auto f = m_ctx->load(m_baselineCubin, twin)) return f;
    std::optional<Failure> f = prepareTiming(twin);
    std::vector<double> ta, tb;
    if (!f) f = interleave(m_baseline, twin, options.noiseRounds, ta, tb);
    m_ctx->unload(twin);
    if (f) return f;
    noise.self = ratioInterval(ta, tb);
    noise.floor = noiseFloor(noise.self);
    noise.baselineUs = median(ta);
    // One long twin run understates the noise between evaluations: each candidate is a separately
    // loaded module measured at another moment, and where a module lands shifts its time a little for
    // as long as it is loaded. So also screen `noiseTwins` (16) fresh twins like candidates; the floor
    // is the largest of: the long twin's, the largest twin |median - 1|, and 3 x a robust sigma of the
    // twins (1.4826 x the median |median - 1|). Either alone lets identical candidates through as
    // faster: the largest of 8 twins let 3 of 30 (eval_add), the robust sigma ignored a twin 0.41% fast
    // and let 10 of 75 (attention): docs/status.md, "Noise floor from identical twins".
    std::vector<double> twinDeviation;
    for (int t = 0; t < options.noiseTwins; ++t) {
        KernelHandle again;
        if (auto lf = m_ctx->load(m_baselineCubin, again)) return lf;
        std::optional<Failure> tf = prepareTiming(again);
        std::vector<double> sa, sb;
        if (!tf) tf = interleave(m_baseline, again, options.noiseTwinRounds, sa, sb);
        m_ctx->unload(again);
        if (tf) return tf;
        const double m = ratioInterval(sa, sb).median;
        noise.twinMedians.push_back(m);
        twinDeviation.push_back(std::fabs(m - 1.0));
    }
    if (!twinDeviation.empty()) {
        noise.twinRobustSigma = 1.4826 * median(twinDeviation);
        const double largest = *std::max_element(twinDeviation.begin(), twinDeviation.end());
        noise.floor = std::max({noise.floor, 3.0 * noise.twinRobustSigma, largest});
    }
    return std::nullopt;
}

} // namespace sassx::eval
