#include "core/eval/gpu_session.h"

#include "core/eval/compare.h"
#include "core/eval/eval_result.h"
#include "core/eval/input_gen.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace sassx::eval {

using nlohmann::json;

namespace {
json failureResponse(const json& request, const Failure& f)
{
    return protocol::makeErrorResponse(request, f.status, f.kind, f.message);
}
} // namespace

GpuSession::GpuSession(std::unique_ptr<GpuContext> context) : m_ctx(std::move(context)) {}

GpuSession::~GpuSession()
{
    tearDown();
}

json GpuSession::source() const
{
    return {{"device", m_ctx->info().name}, {"kind", "measured"}};
}

void GpuSession::tearDown()
{
    if (m_ctx->lost()) return;
    m_ctx->unload(m_baseline);
    if (m_incumbent.module) m_ctx->unload(m_incumbent);
    m_incumbent = {};
    m_incumbentCubin.clear();
    // Aliases point into their root's allocation: only owners are released.
    for (size_t i = 0; i < m_work.size() && i < m_spec.params.size(); ++i)
        if (m_work[i] && m_spec.params[i].ownsAllocation()) m_ctx->release(m_work[i]);
    for (auto& set : m_pristine)
        for (cu::DevicePtr p : set)
            if (p) m_ctx->release(p);
    for (auto& set : m_referenceOnDevice)
        for (cu::DevicePtr p : set)
            if (p) m_ctx->release(p);
    m_work.clear();
    m_pristine.clear();
    m_reference.clear();
    m_referenceOnDevice.clear();
    m_compared.clear();
    m_hasBaseline = false;
}

std::optional<Failure> GpuSession::setUp(const LaunchSpec& spec, const protocol::BaselineOptions& options)
{
    tearDown();
    m_spec = spec;
    m_options = options;
    const size_t n = spec.params.size();
    m_work.assign(n, 0);
    m_pristine.assign(size_t(options.inputSets), std::vector<cu::DevicePtr>(n, 0));
    std::vector<std::vector<uint8_t>> args(n);
    m_compared = comparedParams(spec);
    // Owners first, so that every alias finds its root's allocation.
    for (int i : allocatedParams(spec)) {
        const ParamSpec& p = spec.params[size_t(i)];
        cu::DevicePtr ptr = 0;
        if (auto f = m_ctx->alloc(p.bufferBytes(), ptr)) return f;
        m_work[size_t(i)] = ptr;
        if (!p.initialised()) continue;
        // Recorded values are the same bytes in every input set; drawn ones differ per set.
        std::vector<uint8_t> recorded;
        if (p.init.kind == InitKind::Recorded) {
            auto bytes = readRecordedValues(p);
            if (!bytes) return Failure{"error", failure::kError, bytes.message()};
            recorded = std::move(bytes.value());
        }
        for (int k = 0; k < options.inputSets; ++k) {
            const std::vector<uint8_t> drawn =
                p.init.kind == InitKind::Recorded ? std::vector<uint8_t>{}
                                                  : generateBuffer(p, options.seed, uint32_t(k), uint32_t(i));
            const std::vector<uint8_t>& host = p.init.kind == InitKind::Recorded ? recorded : drawn;
            cu::DevicePtr copy = 0;
            if (auto f = m_ctx->alloc(host.size(), copy)) return f;
            if (auto f = m_ctx->check(m_ctx->driver().memcpyHtoD(copy, host.data(), host.size()),
                                      "cuMemcpyHtoD (inputs)"))
                return f;
            m_pristine[size_t(k)][size_t(i)] = copy;
        }
    }
    for (size_t i = 0; i < n; ++i) {
        const ParamSpec& p = spec.params[i];
        if (p.kind == ParamKind::Scalar) {
            args[i] = scalarBytes(p);
            continue;
        }
        if (p.isAlias()) m_work[i] = m_work[size_t(p.aliasRoot)] + p.rootOffset;
        const cu::DevicePtr ptr = p.kind == ParamKind::Buffer ? m_work[i] : 0;
        args[i].resize(sizeof(cu::DevicePtr));
        std::memcpy(args[i].data(), &ptr, sizeof ptr);
    }
    m_ctx->setLaunch(spec, std::move(args));
    return std::nullopt;
}

std::optional<Failure> GpuSession::prepareSet(int k)
{
    for (size_t i = 0; i < m_spec.params.size(); ++i) {
        const ParamSpec& p = m_spec.params[i];
        if (!p.ownsAllocation()) continue; // an alias's memory is its root's, restored through it
        // Inputs are restored every time too: a broken candidate may have scribbled over them.
        if (p.initialised()) {
            if (auto f = m_ctx->copy(m_work[i], m_pristine[size_t(k)][i], p.bufferBytes())) return f;
        } else if (auto f = m_ctx->fill(m_work[i], poisonByte(uint32_t(k)), p.bufferBytes())) {
            return f;
        }
    }
    return std::nullopt;
}

std::optional<Failure> GpuSession::runSet(const KernelHandle& kernel, int set,
                                          std::vector<std::vector<uint8_t>>& outputs)
{
    if (auto f = prepareSet(set)) return f;
    if (auto f = m_ctx->launch(kernel)) return f;
    if (auto f = m_ctx->synchronize("kernel execution")) return f;
    outputs.resize(m_compared.size());
    for (size_t c = 0; c < m_compared.size(); ++c) {
        const ParamSpec& p = m_spec.params[size_t(m_compared[c])];
        outputs[c].resize(p.bufferBytes());
        if (auto f = m_ctx->check(m_ctx->driver().memcpyDtoH(outputs[c].data(), m_work[size_t(m_compared[c])],
                                                             outputs[c].size()),
                                  "cuMemcpyDtoH (outputs)"))
            return f;
    }
    return std::nullopt;
}

std::optional<Failure> GpuSession::checkCorrect(const KernelHandle& kernel, std::string& mismatch)
{
    mismatch.clear();
    std::vector<std::vector<uint8_t>>& got = m_got;
    for (int k = 0; k < m_options.inputSets; ++k) {
        // Fast path: identical bytes on the device pass whatever the tolerance (the references are
        // NaN-free), and nothing is downloaded. Anything else goes to the host for the full rules
        // and a message naming the first bad element.
        if (k < int(m_referenceOnDevice.size())) {
            if (auto f = prepareSet(k)) return f;
            if (auto f = m_ctx->launch(kernel)) return f;
            if (auto f = m_ctx->synchronize("kernel execution")) return f;
            std::vector<GpuContext::DevicePair> pairs;
            for (size_t c = 0; c < m_compared.size(); ++c)
                pairs.push_back({m_referenceOnDevice[size_t(k)][c], m_work[size_t(m_compared[c])],
                                 m_spec.params[size_t(m_compared[c])].bufferBytes()});
            bool compared = false, same = false;
            if (auto f = m_ctx->sameBytes(pairs, compared, same)) return f;
            if (compared && same) continue;
        }
        if (auto f = runSet(kernel, k, got)) return f;
        for (size_t c = 0; c < m_compared.size(); ++c) {
            const ParamSpec& p = m_spec.params[size_t(m_compared[c])];
            // References were checked NaN-free at load_baseline.
            const CompareResult r =
                compareBuffers(p.dtype, m_reference[size_t(k)][c], got[c], m_spec.tolerance, true);
            if (!r.pass) {
                mismatch = "input set " + std::to_string(k) + ", " + r.describe(p.name);
                return std::nullopt;
            }
        }
    }
    return std::nullopt;
}

std::optional<Failure> GpuSession::verifyDeviceReferences(bool& repaired)
{
    repaired = false;
    std::vector<uint8_t> bytes;
    for (size_t k = 0; k < m_referenceOnDevice.size(); ++k) {
        for (size_t c = 0; c < m_referenceOnDevice[k].size(); ++c) {
            const std::vector<uint8_t>& host = m_reference[k][c];
            bytes.resize(host.size());
            if (auto f = m_ctx->synchronize("reference check")) return f;
            if (auto f = m_ctx->check(
                    m_ctx->driver().memcpyDtoH(bytes.data(), m_referenceOnDevice[k][c], bytes.size()),
                    "cuMemcpyDtoH (reference check)"))
                return f;
            if (bytes == host) continue;
            if (auto f = m_ctx->check(
                    m_ctx->driver().memcpyHtoD(m_referenceOnDevice[k][c], host.data(), host.size()),
                    "cuMemcpyHtoD (reference repair)"))
                return f;
            repaired = true;
        }
    }
    return std::nullopt;
}

json GpuSession::loadBaseline(const json& request)
{
    auto specResult = request.contains("spec")
                          ? parseLaunchSpec(request.at("spec"))
                          : Result<LaunchSpec>(makeError("load_baseline needs a \"spec\""));
    if (!specResult)
        return protocol::makeErrorResponse(request, "error", failure::kError, specResult.message());
    auto cubin = protocol::cubinFromRequest(request);
    if (!cubin) return protocol::makeErrorResponse(request, "error", failure::kError, cubin.message());
    const protocol::BaselineOptions options = protocol::baselineOptionsFromJson(request);
    const LaunchSpec& spec = specResult.value();
    if (spec.dynamicShared > uint32_t(m_ctx->info().maxSharedOptin) && m_ctx->info().maxSharedOptin > 0)
        return protocol::makeErrorResponse(request, "error", failure::kError,
                                           "the spec asks for " + std::to_string(spec.dynamicShared) +
                                               " bytes of dynamic shared memory; this GPU allows " +
                                               std::to_string(m_ctx->info().maxSharedOptin));
    if (auto f = setUp(spec, options)) return failureResponse(request, *f);
    m_baselineCubin = std::move(cubin.value());
    if (auto f = m_ctx->load(m_baselineCubin, m_baseline)) {
        f->message = "baseline: " + f->message;
        return failureResponse(request, *f);
    }

    // References, and two checks that the spec itself is sound before any candidate is judged.
    m_reference.assign(size_t(options.inputSets), {});
    for (int k = 0; k < options.inputSets; ++k) {
        if (auto f = runSet(m_baseline, k, m_reference[size_t(k)])) {
            f->message = "baseline: " + f->message;
            return failureResponse(request, *f);
        }
        // A device copy of the reference for the on-device comparison of candidates.
        std::vector<cu::DevicePtr> onDevice;
        for (size_t c = 0; c < m_compared.size(); ++c) {
            const size_t bytes = m_spec.params[size_t(m_compared[c])].bufferBytes();
            cu::DevicePtr copy = 0;
            if (auto f = m_ctx->alloc(bytes, copy)) return failureResponse(request, *f);
            onDevice.push_back(copy);
            if (auto f = m_ctx->copy(copy, m_work[size_t(m_compared[c])], bytes))
                return failureResponse(request, *f);
        }
        m_referenceOnDevice.push_back(std::move(onDevice));
        for (size_t c = 0; c < m_compared.size(); ++c) {
            const ParamSpec& p = m_spec.params[size_t(m_compared[c])];
            if (uint64_t nans = countNaN(p.dtype, m_reference[size_t(k)][c]))
                return protocol::makeErrorResponse(
                    request, "error", failure::kError,
                    "baseline output " + p.name + " has " + std::to_string(nans) +
                        " NaN element(s) on input set " + std::to_string(k) +
                        ": the original leaves them unwritten (poison) or the inputs make NaN; "
                        "fix the spec (count, init) before evaluating candidates");
        }
    }
    std::vector<std::vector<uint8_t>> again;
    if (auto f = runSet(m_baseline, 0, again)) return failureResponse(request, *f);
    for (size_t c = 0; c < m_compared.size(); ++c) {
        const ParamSpec& p = m_spec.params[size_t(m_compared[c])];
        const CompareResult r = compareBuffers(p.dtype, m_reference[0][c], again[c], m_spec.tolerance);
        if (!r.pass)
            return protocol::makeErrorResponse(
                request, "error", failure::kError,
                "the baseline is not reproducible on identical inputs (" + r.describe(p.name) +
                    "); an order-dependent kernel needs a \"tolerance\" in its spec");
    }

    // Launch mode: time one launch, then pick graph replay for short kernels and enough launches
    // per sample that one sample lasts minSampleUs (event resolution is ~0.5 us).
    for (int i = 0; i < options.warmup; ++i)
        if (auto f = m_ctx->launch(m_baseline)) return failureResponse(request, *f);
    double single = 0.0;
    if (auto f = m_ctx->timeSample(m_baseline, 1, false, options.l2Flush, single))
        return failureResponse(request, *f);
    m_useGraph = options.graph == "on" || (options.graph == "auto" && single < options.graphBelowUs);
    m_launchesPerSample = int(
        std::clamp(std::ceil(options.minSampleUs / std::max(single, 0.5)), 1.0, m_useGraph ? 2000.0 : 200.0));
    if (auto f = prepareTiming(m_baseline)) return failureResponse(request, *f);
    m_hasBaseline = true;

    json resp = protocol::makeResponse(request, "ok");
    resp["source"] = source();
    resp["device"] = {{"name", m_ctx->info().name},
                      {"sm", m_ctx->info().sm},
                      {"multiprocessors", m_ctx->info().multiprocessors},
                      {"l2_bytes", m_ctx->info().l2Bytes}};
    resp["launch_mode"] = m_useGraph ? "graph" : "events";
    resp["launches_per_sample"] = m_launchesPerSample;
    resp["single_launch_us"] = single;
    if (options.noiseRounds > 0) {
        // Baseline against itself, loaded as a second module so that it goes through the same path
        // a candidate does: its spread is the noise floor every verdict must clear.
        KernelHandle twin;
        if (auto f = m_ctx->load(m_baselineCubin, twin)) return failureResponse(request, *f);
        std::optional<Failure> f = prepareTiming(twin);
        std::vector<double> ta, tb;
        if (!f) f = interleave(m_baseline, twin, options.noiseRounds, ta, tb);
        m_ctx->unload(twin);
        if (f) return failureResponse(request, *f);
        const RatioInterval self = ratioInterval(ta, tb);
        m_noiseFloor = noiseFloor(self);
        m_baselineUs = median(ta);
        // One long twin run understates the noise between evaluations: each candidate is a separately
        // loaded module measured at another moment, and where a module lands shifts its time a
        // little for as long as it is loaded. So also screen `noiseTwins` (16) fresh twins like
        // candidates; the floor is the largest of: the long twin's, the largest twin |median - 1|,
        // and 3 x a robust sigma of the twins (1.4826 x the median |median - 1|). Either alone lets
        // identical candidates through as faster: the largest of 8 twins let 3 of 30 (eval_add), the
        // robust sigma ignored a twin 0.41% fast and let 10 of 75 (attention): docs/status.md, "Noise
        // floor from identical twins".
        json twins = json::array();
        std::vector<double> twinDeviation;
        for (int t = 0; t < options.noiseTwins; ++t) {
            KernelHandle again;
            if (auto lf = m_ctx->load(m_baselineCubin, again)) return failureResponse(request, *lf);
            std::optional<Failure> tf = prepareTiming(again);
            std::vector<double> sa, sb;
            if (!tf) tf = interleave(m_baseline, again, options.noiseTwinRounds, sa, sb);
            m_ctx->unload(again);
            if (tf) return failureResponse(request, *tf);
            const double m = ratioInterval(sa, sb).median;
            twins.push_back(m);
            twinDeviation.push_back(std::fabs(m - 1.0));
        }
        double robustSigma = 0.0;
        if (!twinDeviation.empty()) {
            robustSigma = 1.4826 * median(twinDeviation);
            const double largest = *std::max_element(twinDeviation.begin(), twinDeviation.end());
            m_noiseFloor = std::max({m_noiseFloor, 3.0 * robustSigma, largest});
        }
        resp["noise"] = {{"ratio_median", self.median},
                         {"ratio_ci95", {self.low, self.high}},
                         {"rounds", self.rounds},
                         {"twin_screen_medians", twins},
                         {"twin_robust_sigma", robustSigma},
                         {"noise_floor", m_noiseFloor}};
    } else {
        m_noiseFloor = request.value("noise_floor", 0.0); // a restarted worker inherits the pool's figure
        m_baselineUs = single;
    }
    resp["noise_floor"] = m_noiseFloor;
    resp["baseline_median_us"] = m_baselineUs;
    return resp;
}

json GpuSession::evaluate(const json& request)
{
    if (!m_hasBaseline)
        return protocol::makeErrorResponse(request, "error", failure::kError,
                                           "evaluate before load_baseline");
    const auto t0 = std::chrono::steady_clock::now();
    auto cubin = protocol::cubinFromRequest(request);
    if (!cubin) return protocol::makeErrorResponse(request, "failed", failure::kLoad, cubin.message());
    const protocol::EvaluateOptions options = protocol::evaluateOptionsFromJson(request);

    KernelHandle cand;
    if (auto f = m_ctx->load(cubin.value(), cand)) {
        json r = failureResponse(request, *f);
        r["source"] = source();
        return r;
    }
    json resp = protocol::makeResponse(request, "ok");
    resp["source"] = source();
    // Where a worker's time goes (decode + module load, correctness runs, timing rounds): what the
    // throughput benchmark reports, so the next speed-up goes where the time is.
    auto sinceStart = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    json phases{{"load", sinceStart()}};
    auto finish = [&](json r) {
        m_ctx->unload(cand);
        r["worker_ms"] = sinceStart();
        r["phase_ms"] = phases;
        return r;
    };

    std::string mismatch;
    const double beforeCheck = sinceStart();
    auto checked = checkCorrect(cand, mismatch);
    phases["check"] = sinceStart() - beforeCheck;
    if (auto f = checked) return finish(failureResponse(request, *f));
    // A wrong candidate may also have written outside its buffers without faulting, possibly into a
    // device copy of a reference, which would then judge later candidates. Check the copies against
    // the host references after every wrong candidate and every 64 evaluations, and repair them.
    if (!mismatch.empty() || ++m_evaluations % 64 == 0) {
        bool repaired = false;
        if (auto f = verifyDeviceReferences(repaired)) return finish(failureResponse(request, *f));
        if (repaired) resp["reference_repaired"] = true;
    }
    resp["correct"] = mismatch.empty();
    if (!mismatch.empty()) {
        resp["failure_kind"] = failure::kWrongOutput;
        resp["error"] = mismatch;
        return finish(resp);
    }
    if (options.checkOnly) return finish(resp);

    auto reference = protocol::referenceFromRequest(request);
    if (!reference)
        return finish(protocol::makeErrorResponse(request, "error", failure::kError, reference.message()));
    const double beforeTiming = sinceStart();
    TimingFigures t;
    std::optional<Failure> timed;
    if (options.race.enabled() || !reference->empty())
        timed = timePaired(cubin.value(), *reference, options, cand, t);
    else
        timed = timeAdaptive(cubin.value(), options.plan, cand, t);
    phases["timing"] = sinceStart() - beforeTiming;
    if (timed) return finish(failureResponse(request, *timed));
    t.noiseFloor = m_noiseFloor;
    t.verdict = decide(t.ratio, m_noiseFloor);
    t.launchMode = m_useGraph ? "graph" : "events";
    t.launchesPerSample = m_launchesPerSample;
    t.l2Flush = m_options.l2Flush;
    resp["timing"] = toJson(t);
    return finish(resp);
}

Status GpuSession::setUpOneLaunch(const LaunchSpec& spec, const std::vector<uint8_t>& cubin, uint64_t seed,
                                  KernelHandle& k)
{
    protocol::BaselineOptions options;
    options.seed = seed;
    options.inputSets = 1;
    if (auto f = setUp(spec, options)) return makeError(f->message);
    if (auto f = m_ctx->load(cubin, k)) return makeError(f->message);
    return Ok{};
}

Status GpuSession::runOnce(const LaunchSpec& spec, const std::vector<uint8_t>& cubin, uint64_t seed)
{
    KernelHandle k;
    if (Status st = setUpOneLaunch(spec, cubin, seed, k); !st) return st.error();
    std::vector<std::vector<uint8_t>> out;
    auto f = runSet(k, 0, out);
    m_ctx->unload(k);
    if (f) return makeError(f->message);
    return Ok{};
}

Result<ProfileOutcome> GpuSession::profileOnce(const LaunchSpec& spec, const std::vector<uint8_t>& cubin,
                                               uint64_t seed, const std::vector<std::string>& metrics)
{
    KernelHandle k;
    if (Status st = setUpOneLaunch(spec, cubin, seed, k); !st) return st.error();
    auto status = [](std::optional<Failure> f) -> Status {
        if (f) return makeError(f->message);
        return Ok{};
    };
    ProfileRequest r;
    r.context = m_ctx->handle();
    r.deviceIndex = device().ordinal;
    r.metrics = metrics;
    r.source = {device().name, "cupti"};
    r.beforePass = [&]() -> Status {
        if (auto f = prepareSet(0)) return status(f);
        return status(m_ctx->flushL2());
    };
    r.launch = [&]() { return status(m_ctx->launch(k)); };
    r.synchronize = [&]() { return status(m_ctx->synchronize("profiled launch")); };
    auto outcome = profileLaunch(r);
    if (!m_ctx->lost()) m_ctx->unload(k);
    return outcome;
}

Result<StallProfile> GpuSession::sampleOnce(const LaunchSpec& spec, const std::vector<uint8_t>& cubin,
                                            uint64_t seed, int periodExponent)
{
    protocol::BaselineOptions options;
    options.seed = seed;
    options.inputSets = 1;
    if (auto f = setUp(spec, options)) return makeError(f->message);
    KernelHandle k;
    bool loaded = false;
    auto status = [](std::optional<Failure> f) -> Status {
        if (f) return makeError(f->message);
        return Ok{};
    };
    auto timedLaunch = [&]() -> Result<double> {
        double us = 0.0;
        if (auto f = prepareSet(0)) return makeError(f->message);
        if (auto f = m_ctx->timeSample(k, 1, false, true, us)) return makeError(f->message);
        return us;
    };
    PcSampleRequest r;
    r.context = m_ctx->handle();
    r.cubin = &cubin;
    r.kernel = spec.kernel;
    r.periodExponent = periodExponent;
    r.multiprocessors = device().multiprocessors;
    r.clockKHz = device().clockKHz;
    r.source = {device().name, "cupti-pcsampling"};
    r.load = [&]() -> Status {
        if (auto f = m_ctx->load(cubin, k)) return makeError(f->message);
        loaded = true;
        return Ok{};
    };
    r.timeUnsampled = [&]() -> Result<double> {
        // The median of five, each after an L2 flush (as the sampled launch).
        std::vector<double> us;
        for (int i = 0; i < 5; ++i) {
            auto t = timedLaunch();
            if (!t) return t.error();
            us.push_back(*t);
        }
        std::nth_element(us.begin(), us.begin() + 2, us.end());
        return us[2];
    };
    r.beforeLaunch = [&]() { return status(prepareSet(0)); };
    r.launchTimed = [&]() -> Result<double> {
        double us = 0.0;
        if (auto f = m_ctx->timeSample(k, 1, false, true, us)) return makeError(f->message);
        return us;
    };
    r.contextLost = [&] { return m_ctx->lost(); };
    auto profile = sampleLaunch(r);
    if (loaded && !m_ctx->lost()) m_ctx->unload(k);
    return profile;
}

} // namespace sassx::eval
