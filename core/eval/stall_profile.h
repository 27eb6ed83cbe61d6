#pragma once
// Where a kernel's warps wait, per instruction: the result of sampling one launch with CUPTI's PC
// sampling (cupti_pc_sampling.h). Every 2^period cycles each SM's sampler picks a warp and records its
// next instruction and why it did not issue (or that it issued). Samples land on the waiting
// instruction, not on the producer it waits for. Plain data with JSON both ways: the sampling child
// prints it, the worker relays it, the CLI and the GUI read it (docs/stalls.md).
#include "core/common/enum_names.h"
#include "core/common/result.h"
#include "core/eval/eval_result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sassx::eval {

// The stall reasons sassx knows, one per CUPTI suffix ("long_scoreboard"). A decision on samples
// (which waits a schedule can change, which wait a producer causes) reads this, never the word.
enum class StallReason
{
    Selected,
    NotSelected,
    LongScoreboard,
    ShortScoreboard,
    Wait,
    MathPipeThrottle,
    MioThrottle,
    LgThrottle,
    TexThrottle,
    Barrier,
    Membar,
    BranchResolving,
    NoInstructions,
    DispatchStall,
    Drain,
    ImcMiss,
    Sleeping,
    Misc,
    WarpgroupArrive,
    Gmma,
};

// Each reason's short word, the one the CLI, the GUI and the profile's JSON show ("memory wait").
inline constexpr std::array<EnumName<StallReason>, 20> kStallWordNames{{
    {StallReason::Selected, "issuing"},
    {StallReason::NotSelected, "not selected"},
    {StallReason::LongScoreboard, "memory wait"},
    {StallReason::ShortScoreboard, "MIO wait"},
    {StallReason::Wait, "fixed latency"},
    {StallReason::MathPipeThrottle, "math pipe busy"},
    {StallReason::MioThrottle, "MIO queue full"},
    {StallReason::LgThrottle, "LSU queue full"},
    {StallReason::TexThrottle, "TEX queue full"},
    {StallReason::Barrier, "barrier"},
    {StallReason::Membar, "membar"},
    {StallReason::BranchResolving, "branch"},
    {StallReason::NoInstructions, "ifetch"},
    {StallReason::DispatchStall, "dispatch"},
    {StallReason::Drain, "drain"},
    {StallReason::ImcMiss, "const miss"},
    {StallReason::Sleeping, "sleeping"},
    {StallReason::Misc, "misc"},
    {StallReason::WarpgroupArrive, "warpgroup wait"},
    {StallReason::Gmma, "wgmma"},
}};

// The reason of a word; none for a word this build does not know (CUPTI's own suffix, kept as is).
constexpr std::optional<StallReason> parseStallWord(std::string_view word)
{
    return parseEnum(kStallWordNames, word);
}
inline std::string stallWordName(StallReason r)
{
    return std::string(enumName(kStallWordNames, r));
}
// Samples of warps that issued or could have: not a wait a schedule can shorten.
constexpr bool isIssueSide(StallReason r)
{
    return r == StallReason::Selected || r == StallReason::NotSelected;
}
// A wait for a producer's result through a scoreboard (global/local/texture, or MIO/shared).
constexpr bool waitsOnScoreboard(StallReason r)
{
    return r == StallReason::LongScoreboard || r == StallReason::ShortScoreboard;
}

struct StallReasonInfo
{
    uint32_t index = 0;     // CUPTI's index, as records carry it
    std::string name;       // "smsp__pcsamp_warps_issue_stalled_long_scoreboard"
    std::string word;       // "memory wait"
    bool notIssued = false; // the "_not_issued" twin: samples where the scheduler issued nothing
};

// The short word for a CUPTI stall-reason name (the suffix after
// "smsp__pcsamp_warps_issue_stalled_", without "_not_issued"); an unknown suffix comes back as is.
std::string stallWord(const std::string& cuptiName);
// True for the "_not_issued" twins.
bool isNotIssuedReason(const std::string& cuptiName);
// What the word means, in one sentence (tooltips).
std::string stallWordMeaning(const std::string& word);

struct StallProfile
{
    FigureSource source; // {device, "cupti-pcsampling"}
    std::string kernel;
    std::string cupti;            // the library's path
    int periodExponent = 0;       // samples every 2^periodExponent cycles per SM
    double durationUs = 0.0;      // median of unsampled launches
    double sampledLaunchUs = 0.0; // the sampled launch itself
    uint64_t totalSamples = 0;    // everything CUPTI counted in the range
    uint64_t droppedSamples = 0;
    uint64_t kernelSamples = 0; // on this kernel's instructions, all reasons
    uint64_t otherSamples = 0;  // other functions or modules
    bool hardwareBufferFull = false;
    std::vector<StallReasonInfo> reasons;
    // Byte offset in the kernel's code → (reason index, samples), nonzero only.
    std::map<uint64_t, std::vector<std::pair<uint32_t, uint64_t>>> pcs;
    std::vector<std::string> warnings;

    const StallReasonInfo* reason(uint32_t index) const;
};

nlohmann::json toJson(const StallProfile& p);
Result<StallProfile> stallProfileFromJson(const nlohmann::json& j);

// The sampling child's output: one JSON line, possibly after lines a library printed. A failed child
// gives its error.
Result<StallProfile> parsePcSampleOneshot(const std::string& text);

// Samples of one instruction by word (issued and stalled samples; "not issued" twins apart).
struct InstructionStalls
{
    uint64_t samples = 0;   // all samples at the instruction (not-issued twins excluded)
    uint64_t notIssued = 0; // of which the scheduler issued nothing (from the twins)
    std::vector<std::pair<std::string, uint64_t>> byWord; // largest first
    std::string topWord() const { return byWord.empty() ? std::string() : byWord.front().first; }
};

// Per instruction position (offset / 16) of a kernel with `instructions` instructions. Offsets past
// the end (a stale profile) are ignored.
std::vector<InstructionStalls> stallsByPosition(const StallProfile& p, size_t instructions);
// Whole-kernel totals by word, largest first.
std::vector<std::pair<std::string, uint64_t>> stallTotals(const StallProfile& p);

// The sampling period exponent for a kernel of `durationUs` on `sms` SMs at `clockKHz`: the smallest
// e in [5, 31] whose expected sample count (one per SM every 2^e cycles) stays at or below `target`.
int choosePeriodExponent(double durationUs, double clockKHz, int sms, uint64_t target = 250000);

} // namespace sassx::eval
