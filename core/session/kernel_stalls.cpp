#include "core/session/kernel_stalls.h"

namespace sassx {

Result<KernelStalls> mapStalls(const eval::StallProfile& profile, const KernelAnalysis& analysis,
                               const Schedule& variant)
{
    const size_t n = analysis.listing.instructions.size();
    if (variant.order.size() != n) return makeError("the schedule does not belong to this kernel");
    for (const auto& [offset, samples] : profile.pcs)
        if (offset / 16 >= n)
            return makeError("the stall samples reach offset " + std::to_string(offset) +
                             ", past the kernel's " + std::to_string(n) +
                             " instructions: they belong to other code");
    const auto byPosition = eval::stallsByPosition(profile, n);
    KernelStalls out;
    out.byOriginal.resize(n);
    out.byBlock.assign(analysis.cfg.blocks.size(), 0);
    for (size_t pos = 0; pos < n; ++pos) {
        out.byOriginal[variant.order[pos]] = byPosition[pos];
        out.samples += byPosition[pos].samples;
        const int block = analysis.cfg.blockOf[pos];
        if (block >= 0 && size_t(block) < out.byBlock.size())
            out.byBlock[size_t(block)] += byPosition[pos].samples;
    }
    out.byWord = eval::stallTotals(profile);
    return out;
}

nlohmann::json kernelStallsJson(const KernelStalls& stalls, const KernelAnalysis& analysis,
                                const Schedule& variant)
{
    nlohmann::json instructions = nlohmann::json::array();
    for (size_t pos = 0; pos < variant.order.size(); ++pos) {
        const uint32_t orig = variant.order[pos];
        const eval::InstructionStalls& s = stalls.byOriginal[orig];
        if (!s.samples && !s.notIssued) continue;
        nlohmann::json words = nlohmann::json::object();
        for (const auto& [word, count] : s.byWord)
            words[word] = count;
        instructions.push_back({{"position", pos},
                                {"offset", pos * 16},
                                {"original", orig},
                                {"text", analysis.listing.instructions[orig].text()},
                                {"samples", s.samples},
                                {"share", stalls.share(orig)},
                                {"not_issued", s.notIssued},
                                {"by_reason", words}});
    }
    nlohmann::json blocks = nlohmann::json::array();
    for (size_t b = 0; b < stalls.byBlock.size(); ++b)
        if (stalls.byBlock[b])
            blocks.push_back(
                {{"block", b},
                 {"first", analysis.cfg.blocks[b].first},
                 {"samples", stalls.byBlock[b]},
                 {"share", stalls.samples ? double(stalls.byBlock[b]) / double(stalls.samples) : 0.0}});
    nlohmann::json totals = nlohmann::json::object();
    for (const auto& [word, count] : stalls.byWord)
        totals[word] = count;
    return {{"samples", stalls.samples},
            {"by_reason", totals},
            {"blocks", blocks},
            {"instructions", instructions}};
}

} // namespace sassx
