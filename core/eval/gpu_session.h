#pragma once
// The worker's engine: holds the baseline, its K reference outputs and the device buffers, and
// answers load_baseline / evaluate requests (protocol.h) with correctness and interleaved timing.
#include "core/eval/cupti_pc_sampling.h"
#include "core/eval/cupti_profiler.h"
#include "core/eval/gpu_context.h"
#include "core/eval/launch_spec.h"
#include "core/eval/protocol.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

namespace sassx::eval {

class GpuSession
{
public:
    explicit GpuSession(std::unique_ptr<GpuContext> context);
    ~GpuSession();

    const DeviceInfo& device() const { return m_ctx->info(); }
    bool contextLost() const { return m_ctx->lost(); }

    // Each returns the full response object for the request.
    nlohmann::json loadBaseline(const nlohmann::json& request);
    nlohmann::json evaluate(const nlohmann::json& request);

    // For the one-kernel runner under ncu: set up `spec` with input set 0 and launch `cubin` once.
    Status runOnce(const LaunchSpec& spec, const std::vector<uint8_t>& cubin, uint64_t seed);
    // The same launch under CUPTI's range profiler: before every pass input set 0 is restored, the
    // outputs are poisoned and the L2 is flushed, as ncu's kernel replay with cache control does.
    Result<ProfileOutcome> profileOnce(const LaunchSpec& spec, const std::vector<uint8_t>& cubin,
                                       uint64_t seed, const std::vector<std::string>& metrics);
    // Stall samples of one launch (cupti_pc_sampling.h); the module is loaded only after sampling is
    // enabled. `periodExponent` 0 = chosen from the unsampled duration.
    Result<StallProfile> sampleOnce(const LaunchSpec& spec, const std::vector<uint8_t>& cubin, uint64_t seed,
                                    int periodExponent);

    const LaunchSpec* spec() const { return m_hasBaseline ? &m_spec : nullptr; }
    const std::vector<uint8_t>& baselineCubin() const { return m_baselineCubin; }
    uint64_t seed() const { return m_options.seed; }

private:
    // The baseline's noise: itself against a twin module over many rounds, then fresh twins screened
    // like candidates; `floor` is what every verdict must clear.
    struct NoiseFigures
    {
        RatioInterval self;
        std::vector<double> twinMedians;
        double twinRobustSigma = 0.0;
        double floor = 0.0;
        double baselineUs = 0.0; // the baseline's median in the long twin run
    };

    // load_baseline's measuring steps (gpu_session_baseline.cpp); a spec found unsound is a Failure
    // with status "error", like a bad request.
    std::optional<Failure> setUpBaseline(const LaunchSpec& spec, std::vector<uint8_t> cubin,
                                         const protocol::BaselineOptions& options);
    // The K reference outputs (on the host and on the device), refusing a spec that leaves NaNs.
    std::optional<Failure> recordReferences(int inputSets);
    // Input set 0 again must give the same outputs (within the spec's tolerance).
    std::optional<Failure> checkReproducible();
    // For every root whose spec carries the program's own output digest: whether the original, run on
    // input set 0 with its outputs zeroed (the program's memory before the launch), leaves the same bytes.
    // `out` becomes {"matched": [names], "differs": [names]}, or stays null when no root has a digest. A
    // difference is reported, never a failure: the capture may have missed memory the kernel reads.
    std::optional<Failure> compareProgramReference(nlohmann::json& out);
    // Events or graph, and launches per sample, from one timed launch; `singleUs` is that launch.
    std::optional<Failure> chooseLaunchMode(const protocol::BaselineOptions& options, double& singleUs);
    std::optional<Failure> measureNoise(const protocol::BaselineOptions& options, NoiseFigures& noise);
    static nlohmann::json noiseJson(const NoiseFigures& noise);

    nlohmann::json source() const;
    std::optional<Failure> setUp(const LaunchSpec& spec, const protocol::BaselineOptions& options);
    void tearDown();
    // Restores input set k into the launch buffers and poisons the outputs.
    std::optional<Failure> prepareSet(int k);
    // Runs `k` on input set `set`, downloading every compared buffer into `outputs`.
    std::optional<Failure> runSet(const KernelHandle& kernel, int set,
                                  std::vector<std::vector<uint8_t>>& outputs);
    // Compares against the references of every input set; returns an empty string when all match.
    std::optional<Failure> checkCorrect(const KernelHandle& kernel, std::string& mismatch);
    // `rounds` interleaved rounds (A B, then B A, ...): per-launch microseconds of each.
    std::optional<Failure> interleave(const KernelHandle& a, const KernelHandle& b, int rounds,
                                      std::vector<double>& ta, std::vector<double>& tb);
    std::optional<Failure> prepareTiming(KernelHandle& k);
    // Replaces `k` by a freshly loaded instance of `cubin`, ready to time.
    std::optional<Failure> freshInstance(const std::vector<uint8_t>& cubin, KernelHandle& k);
    // Against the baseline: a screen, then fresh confirmation rounds for a promising one (AdaptivePlan).
    std::optional<Failure> timeAdaptive(const std::vector<uint8_t>& cubin, const AdaptivePlan& plan,
                                        KernelHandle& cand, TimingFigures& t);
    // Against `reference` (empty: the baseline), raced when options.race is enabled (race.h), else one
    // paired screen of options.plan.screenRounds.
    std::optional<Failure> timePaired(const std::vector<uint8_t>& cubin,
                                      const std::vector<uint8_t>& reference,
                                      const protocol::EvaluateOptions& options, KernelHandle& cand,
                                      TimingFigures& t);
    std::optional<Failure> timingFailure(const std::string& message);
    // The one-launch runners' set-up: input set 0 of `spec` and `cubin` loaded into `k`.
    Status setUpOneLaunch(const LaunchSpec& spec, const std::vector<uint8_t>& cubin, uint64_t seed,
                          KernelHandle& k);
    // Downloads each device reference copy, compares it with the host reference and re-uploads it
    // if a candidate overwrote it.
    std::optional<Failure> verifyDeviceReferences(bool& repaired);

    std::unique_ptr<GpuContext> m_ctx;
    bool m_hasBaseline = false;
    LaunchSpec m_spec;
    protocol::BaselineOptions m_options;
    std::vector<uint8_t> m_baselineCubin;
    KernelHandle m_baseline;
    std::vector<cu::DevicePtr> m_work; // per slot (LaunchSpec::slot): its allocation, 0 if none
    std::vector<std::vector<cu::DevicePtr>> m_pristine; // [set][slot]: input copies, never launched on
    std::vector<std::vector<std::vector<uint8_t>>> m_reference;  // [set][compared buffer]
    std::vector<std::vector<cu::DevicePtr>> m_referenceOnDevice; // [set][compared buffer]
    std::vector<int> m_compared;                                 // slots of compared buffers
    std::vector<std::vector<uint8_t>> m_got; // candidate outputs, reused: no 16 MB reallocation per run
    bool m_useGraph = false;
    int m_launchesPerSample = 1;
    uint64_t m_evaluations = 0;
    double m_noiseFloor = 0.0;
    double m_baselineUs = 0.0;
    // The last reference (a search's incumbent) timed against, kept loaded between requests.
    std::vector<uint8_t> m_incumbentCubin;
    KernelHandle m_incumbent;
    std::optional<Failure> m_lastTimingFailure;
};

} // namespace sassx::eval
