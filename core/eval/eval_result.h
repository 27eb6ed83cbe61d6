#pragma once
// What an evaluator returns for one candidate. Every figure carries its source so that no screen or
// report can show an estimate as a measurement.
#include "core/common/enum_names.h"
#include "core/eval/figure_kind.h"
#include "core/eval/timing_stats.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sassx::eval {

// Where a figure comes from: the device (GPU name, or "model" for estimates) and how it was obtained
// (figure_kind.h). No kind: a figure read from a file or a response that did not say.
struct FigureSource
{
    std::string device;
    std::optional<FigureKind> kind;
    bool isEstimate() const { return kind == FigureKind::Estimate; }
    // Nothing known: no kind and no device (a failure before any evaluator answered).
    bool empty() const { return !kind && device.empty(); }
    // "measured, NVIDIA H100", "estimate, model sm_90": the written form reports and search records keep.
    std::string label() const;
    // The inverse of label(), for the files that keep that written form; an unknown kind reads as none.
    static FigureSource fromLabel(const std::string& label);
};

// {"device": …, "kind": "measured"}; reading one, what it lacks comes from `fallback`.
nlohmann::json toJson(const FigureSource& s);
FigureSource figureSourceFromJson(const nlohmann::json& j, const FigureSource& fallback = {});

struct MetricValue
{
    std::string name; // Nsight Compute metric name
    double value = 0.0;
    std::string unit;
    FigureSource source;
};

// Why a candidate failed. Stable strings: they are part of the protocol and of saved sessions.
namespace failure {
inline constexpr const char* kLoad = "load_failed"; // cuModuleLoadData refused the cubin
inline constexpr const char* kKernelMissing = "kernel_not_found";
inline constexpr const char* kParams = "param_mismatch"; // KPARAM_INFO / driver disagree with the spec
inline constexpr const char* kWrongOutput = "wrong_output";
inline constexpr const char* kFault = "fault";        // illegal address/instruction: context lost
inline constexpr const char* kTimeout = "timeout";    // deadline passed: worker killed
inline constexpr const char* kCrash = "worker_crash"; // worker died without answering
inline constexpr const char* kProtocol = "protocol";  // worker answered something unreadable
inline constexpr const char* kError = "error";        // anything else (bad request, no baseline)
} // namespace failure

// Whether the candidate's outputs were compared with the original's. The estimate runs nothing: its
// `correct` only means "not refuted", and it is stored and shown as not run, never as a check that passed.
enum class OutputCheck
{
    Compared,
    NotRun,
};

inline constexpr std::array<EnumName<OutputCheck>, 2> kOutputCheckNames{{
    {OutputCheck::Compared, "compared"},
    {OutputCheck::NotRun, "not run"},
}};

struct EvalResult
{
    bool correct = false; // with OutputCheck::NotRun: not refuted, nothing was compared
    OutputCheck outputCheck = OutputCheck::Compared;
    std::string failureKind; // empty when correct
    std::string failure;     // one sentence for the user
    std::optional<TimingFigures> timing;
    std::vector<MetricValue> metrics;
    FigureSource source;
    int worker = -1;                       // pool slot that answered
    double wallMs = 0.0;                   // caller-side time for this evaluation
    std::map<std::string, double> phaseMs; // worker-side: "load", "check", "timing"
    bool ok() const { return correct && failureKind.empty(); }
};

nlohmann::json toJson(const EvalResult& r);
// Builds a result from a worker's "evaluate" response (protocol.h); unknown shapes become a
// protocol failure rather than an exception.
EvalResult evalResultFromResponse(const nlohmann::json& response);
EvalResult failedResult(const std::string& kind, const std::string& message);
// One figure from the same candidate measured in several fresh processes (AdaptivePlan::processes):
// the first failure if any part failed, else the interval over processes (instancesInterval), the
// rounds summed, the medians' median for the times, and the verdict decided again on the whole.
EvalResult combineProcessResults(const std::vector<EvalResult>& parts);

} // namespace sassx::eval
