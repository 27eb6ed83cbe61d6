#pragma once
// The worker protocol: one JSON object per line over the worker's stdin (requests) and stdout
// (responses). docs/evaluator.md is the reference; these helpers build and read the messages so
// that the pool, the worker and the tests cannot drift apart.
//
// Requests carry "op" and an integer "id"; each response echoes both and has "status":
//   "ok"     the request was carried out (an evaluated candidate may still be incorrect)
//   "failed" the candidate could not be run (bad cubin, kernel missing, params) — worker still fine
//   "fault"  the candidate broke the CUDA context; the worker exits after writing this line
//   "error"  the request itself was wrong (unknown op, no baseline loaded, bad JSON)
#include "core/common/result.h"
#include "core/eval/launch_mode.h"
#include "core/eval/launch_spec.h"
#include "core/eval/metrics_backend.h"
#include "core/eval/race.h"
#include "core/eval/timing_stats.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sassx::eval::protocol {

inline constexpr int kVersion = 1;

struct BaselineOptions
{
    uint64_t seed = 20261121;
    int inputSets = 3;        // K random input sets for correctness
    int noiseRounds = 30;     // baseline-vs-baseline rounds for the noise floor (0: skip)
    int noiseTwins = 16;      // extra twin modules screened like candidates for the floor
    int noiseTwinRounds = 10; // rounds each (as a screen)
    bool l2Flush = false;     // flush L2 (memset of a buffer > L2) before every timed launch
    GraphUse graph = GraphUse::Auto;
    double graphBelowUs = 20.0;
    double minSampleUs = 500.0; // launches per timed sample are raised until a sample lasts this long
    int warmup = 3;
};

struct EvaluateOptions
{
    AdaptivePlan plan;
    bool checkOnly = false; // correctness only, no timing
    RacePlan race;          // enabled: the candidate is raced (race.h) instead of `plan`
};

nlohmann::json makeHello(int id);
// The cubin travels inline (base64) unless cubinPath is given: a path avoids copying large cubins
// through the pipe when caller and worker share a file system.
nlohmann::json makeLoadBaseline(int id, const LaunchSpec& spec, std::span<const uint8_t> cubin,
                                const BaselineOptions& options);
nlohmann::json makeEvaluate(int id, std::span<const uint8_t> cubin, const EvaluateOptions& options);
nlohmann::json makeEvaluatePath(int id, const std::string& cubinPath, const EvaluateOptions& options);
// Times the candidate against `reference` (inline, base64) instead of the baseline: paired rounds against
// a search's incumbent. Correctness is still judged against the baseline's outputs.
void setReference(nlohmann::json& request, std::span<const uint8_t> reference);
// Metrics of the candidate (or of the baseline when `cubin` is empty).
nlohmann::json makeMetrics(int id, std::span<const uint8_t> cubin, const std::vector<std::string>& metrics,
                           MetricsBackend backend = MetricsBackend::Auto);
// Stall samples of `cubin` (the baseline when empty); period 0 = automatic, else 5..31.
nlohmann::json makePcSample(int id, std::span<const uint8_t> cubin, int period);
nlohmann::json makeShutdown(int id);

std::string encodeLine(const nlohmann::json& message); // compact JSON + '\n'
Result<nlohmann::json> parseLine(std::string_view line);

// The cubin of a request: "cubin_b64" or "cubin_path".
Result<std::vector<uint8_t>> cubinFromRequest(const nlohmann::json& request);
// The reference of an evaluate request ("reference_b64"); empty when it has none (the baseline).
Result<std::vector<uint8_t>> referenceFromRequest(const nlohmann::json& request);
BaselineOptions baselineOptionsFromJson(const nlohmann::json& request);
EvaluateOptions evaluateOptionsFromJson(const nlohmann::json& request);

// Response skeleton echoing the request's id and op.
nlohmann::json makeResponse(const nlohmann::json& request, const std::string& status);
nlohmann::json makeErrorResponse(const nlohmann::json& request, const std::string& status,
                                 const std::string& failureKind, const std::string& message);

} // namespace sassx::eval::protocol
