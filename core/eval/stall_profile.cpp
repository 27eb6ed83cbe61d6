#include "core/eval/stall_profile.h"

#include <algorithm>
#include <cmath>

namespace sassx::eval {

using nlohmann::json;

namespace {

constexpr const char* kPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr const char* kNotIssued = "_not_issued";

std::string suffixOf(const std::string& name)
{
    std::string s = name.rfind(kPrefix, 0) == 0 ? name.substr(std::string(kPrefix).size()) : name;
    const std::string tail = kNotIssued;
    if (s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0)
        s.resize(s.size() - tail.size());
    return s;
}

// CUPTI suffix → reason and meaning (the meanings follow Nsight Compute's stall reasons); the word is
// the reason's name (kStallWordNames).
struct Word
{
    const char* suffix;
    StallReason reason;
    const char* meaning;
};
constexpr Word kWords[] = {
    {"selected", StallReason::Selected, "the warp was issuing an instruction (not a stall)"},
    {"not_selected", StallReason::NotSelected, "the warp was ready, but the scheduler issued another warp"},
    {"long_scoreboard", StallReason::LongScoreboard,
     "waiting for a global, local or texture result (long scoreboard)"},
    {"short_scoreboard", StallReason::ShortScoreboard,
     "waiting for a shared-memory, MUFU or other MIO result (short scoreboard)"},
    {"wait", StallReason::Wait,
     "waiting out a fixed-latency dependency: the stall count of the control bits"},
    {"math_pipe_throttle", StallReason::MathPipeThrottle, "the math pipe this instruction needs is busy"},
    {"mio_throttle", StallReason::MioThrottle,
     "the MIO instruction queue (shared memory, special functions) is full"},
    {"lg_throttle", StallReason::LgThrottle, "the local/global memory instruction queue is full"},
    {"tex_throttle", StallReason::TexThrottle, "the texture (L1TEX) queue is full"},
    {"barrier", StallReason::Barrier, "waiting at a barrier for the other warps of the block"},
    {"membar", StallReason::Membar, "waiting for a memory barrier"},
    {"branch_resolving", StallReason::BranchResolving, "waiting for a branch target to resolve"},
    {"no_instructions", StallReason::NoInstructions,
     "the next instruction was not fetched yet (instruction cache)"},
    {"dispatch_stall", StallReason::DispatchStall, "the dispatcher held the warp back"},
    {"drain", StallReason::Drain, "after EXIT, waiting for memory stores to drain"},
    {"imc_miss", StallReason::ImcMiss, "an immediate-constant cache miss"},
    {"sleeping", StallReason::Sleeping, "the warp sleeps (NANOSLEEP) or yielded"},
    {"misc", StallReason::Misc, "another hardware reason"},
    {"warpgroup_arrive", StallReason::WarpgroupArrive, "waiting at a warpgroup arrive/wait (wgmma)"},
    {"gmma", StallReason::Gmma, "waiting on a warpgroup matrix multiply"},
};

const Word* findWord(const std::string& suffix)
{
    for (const Word& w : kWords)
        if (suffix == w.suffix) return &w;
    return nullptr;
}

} // namespace

std::string stallWord(const std::string& cuptiName)
{
    const std::string suffix = suffixOf(cuptiName);
    const Word* w = findWord(suffix);
    return w ? stallWordName(w->reason) : suffix;
}

bool isNotIssuedReason(const std::string& cuptiName)
{
    const std::string tail = kNotIssued;
    return cuptiName.size() > tail.size() &&
           cuptiName.compare(cuptiName.size() - tail.size(), tail.size(), tail) == 0;
}

std::string stallWordMeaning(const std::string& word)
{
    if (const auto reason = parseStallWord(word))
        for (const Word& w : kWords)
            if (w.reason == *reason) return w.meaning;
    return "a reason this build does not know (CUPTI's own name)";
}

const StallReasonInfo* StallProfile::reason(uint32_t index) const
{
    for (const StallReasonInfo& r : reasons)
        if (r.index == index) return &r;
    return nullptr;
}

json toJson(const StallProfile& p)
{
    json reasons = json::array();
    for (const StallReasonInfo& r : p.reasons)
        reasons.push_back(
            {{"index", r.index}, {"name", r.name}, {"word", r.word}, {"not_issued", r.notIssued}});
    json pcs = json::array();
    for (const auto& [offset, samples] : p.pcs) {
        json s = json::array();
        for (const auto& [reason, n] : samples)
            s.push_back({reason, n});
        pcs.push_back({{"offset", offset}, {"s", s}});
    }
    return {
        {"source", toJson(p.source)},
        {"kernel", p.kernel},
        {"cupti", p.cupti},
        {"sampling_period", {{"exponent", p.periodExponent}, {"cycles", uint64_t(1) << p.periodExponent}}},
        {"duration_us", p.durationUs},
        {"sampled_launch_us", p.sampledLaunchUs},
        {"total_samples", p.totalSamples},
        {"dropped_samples", p.droppedSamples},
        {"kernel_samples", p.kernelSamples},
        {"other_samples", p.otherSamples},
        {"hardware_buffer_full", p.hardwareBufferFull},
        {"reasons", reasons},
        {"pcs", pcs},
        {"warnings", p.warnings}};
}

Result<StallProfile> stallProfileFromJson(const json& j)
{
    if (!j.is_object()) return makeError("stall profile: not a JSON object");
    try {
        StallProfile p;
        if (j.contains("source")) p.source = figureSourceFromJson(j.at("source"));
        p.kernel = j.value("kernel", std::string());
        p.cupti = j.value("cupti", std::string());
        if (j.contains("sampling_period")) p.periodExponent = j.at("sampling_period").value("exponent", 0);
        p.durationUs = j.value("duration_us", 0.0);
        p.sampledLaunchUs = j.value("sampled_launch_us", 0.0);
        p.totalSamples = j.value("total_samples", uint64_t(0));
        p.droppedSamples = j.value("dropped_samples", uint64_t(0));
        p.kernelSamples = j.value("kernel_samples", uint64_t(0));
        p.otherSamples = j.value("other_samples", uint64_t(0));
        p.hardwareBufferFull = j.value("hardware_buffer_full", false);
        for (const json& r : j.value("reasons", json::array())) {
            StallReasonInfo info;
            info.index = r.at("index").get<uint32_t>();
            info.name = r.at("name").get<std::string>();
            info.word = r.value("word", stallWord(info.name));
            info.notIssued = r.value("not_issued", isNotIssuedReason(info.name));
            p.reasons.push_back(std::move(info));
        }
        for (const json& pc : j.value("pcs", json::array())) {
            auto& samples = p.pcs[pc.at("offset").get<uint64_t>()];
            for (const json& s : pc.at("s"))
                samples.emplace_back(s.at(0).get<uint32_t>(), s.at(1).get<uint64_t>());
        }
        p.warnings = j.value("warnings", std::vector<std::string>());
        return p;
    } catch (const json::exception& e) {
        return makeError(std::string("stall profile: malformed JSON (") + e.what() + ")");
    }
}

Result<StallProfile> parsePcSampleOneshot(const std::string& text)
{
    // The last line that starts with '{': libraries may print before it.
    size_t end = text.size();
    while (end > 0) {
        const size_t start = text.rfind('\n', end - 1);
        const size_t from = start == std::string::npos ? 0 : start + 1;
        if (from < end && text[from] == '{') {
            json j = json::parse(text.substr(from, end - from), nullptr, false);
            if (j.is_discarded() || !j.is_object())
                return makeError("the sampling child printed malformed JSON");
            if (j.value("status", std::string()) != "ok")
                return makeError(j.value("error", std::string("the sampling child failed without a reason")));
            if (!j.contains("profile")) return makeError("the sampling child's result has no profile");
            return stallProfileFromJson(j.at("profile"));
        }
        if (start == std::string::npos) break;
        end = start;
    }
    return makeError("the sampling child printed no result");
}

std::vector<InstructionStalls> stallsByPosition(const StallProfile& p, size_t instructions)
{
    std::vector<InstructionStalls> out(instructions);
    for (const auto& [offset, samples] : p.pcs) {
        const size_t pos = size_t(offset / 16);
        if (pos >= instructions) continue;
        InstructionStalls& s = out[pos];
        for (const auto& [index, n] : samples) {
            const StallReasonInfo* r = p.reason(index);
            if (r && r->notIssued) {
                s.notIssued += n;
                continue;
            }
            s.samples += n;
            const std::string word = r ? r->word : "unknown:" + std::to_string(index);
            auto it = std::find_if(s.byWord.begin(), s.byWord.end(),
                                   [&](const auto& w) { return w.first == word; });
            if (it == s.byWord.end())
                s.byWord.emplace_back(word, n);
            else
                it->second += n;
        }
        std::sort(s.byWord.begin(), s.byWord.end(),
                  [](const auto& a, const auto& b) { return a.second > b.second; });
    }
    return out;
}

std::vector<std::pair<std::string, uint64_t>> stallTotals(const StallProfile& p)
{
    std::map<std::string, uint64_t> totals;
    for (const auto& [offset, samples] : p.pcs)
        for (const auto& [index, n] : samples) {
            const StallReasonInfo* r = p.reason(index);
            if (r && r->notIssued) continue;
            totals[r ? r->word : "unknown:" + std::to_string(index)] += n;
        }
    std::vector<std::pair<std::string, uint64_t>> out(totals.begin(), totals.end());
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return out;
}

int choosePeriodExponent(double durationUs, double clockKHz, int sms, uint64_t target)
{
    const double cycles = std::max(0.0, durationUs) * clockKHz / 1000.0;
    const double perPeriod = cycles * std::max(1, sms);
    for (int e = 5; e < 31; ++e)
        if (perPeriod / std::ldexp(1.0, e) <= double(std::max<uint64_t>(target, 1))) return e;
    return 31;
}

} // namespace sassx::eval
