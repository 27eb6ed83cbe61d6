#include "core/session/kernel_stalls.h"

#include "core/common/read_file.h"
#include "core/rewrite/block_positions.h"
#include "core/sass/instruction_text.h"

#include <algorithm>

namespace sassx {

Result<eval::StallProfile> readStallProfile(const std::string& path)
{
    auto bytes = readRegularFile(path);
    if (!bytes) return bytes.error();
    auto j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
    if (j.is_discarded()) return makeError(path + ": not JSON");
    // `sassx-cli stalls --json` wraps the profile; a bare profile is accepted too.
    if (j.is_object() && j.contains("profile")) j = j.at("profile");
    auto profile = eval::stallProfileFromJson(j);
    if (!profile) return makeError(path + ": " + profile.message());
    return profile;
}

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
    for (Position pos : variant.positions()) {
        const eval::InstructionStalls& at = byPosition[pos.value()];
        out.byOriginal[variant.order[pos]] = at;
        out.samples += at.samples;
        const int block = blockAt(analysis.cfg, pos);
        if (block >= 0 && size_t(block) < out.byBlock.size()) out.byBlock[size_t(block)] += at.samples;
    }
    out.byWord = eval::stallTotals(profile);
    return out;
}

nlohmann::json kernelStallsJson(const KernelStalls& stalls, const KernelAnalysis& analysis,
                                const Schedule& variant)
{
    nlohmann::json instructions = nlohmann::json::array();
    for (Position pos : variant.positions()) {
        const InstrId orig = variant.order[pos];
        const eval::InstructionStalls& s = stalls.byOriginal[orig];
        if (!s.samples && !s.notIssued) continue;
        nlohmann::json words = nlohmann::json::object();
        for (const auto& [word, count] : s.byWord)
            words[word] = count;
        instructions.push_back(
            {{"position", pos},
             {"offset", size_t(pos.value()) * 16},
             {"original", orig},
             {"text", instructionText(analysis.listing.instructions[orig.value()], variant.control[orig])},
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

std::vector<double> stallGuideWeights(const KernelStalls& stalls, const KernelAnalysis& analysis, int window)
{
    const size_t n = analysis.listing.instructions.size();
    std::vector<double> waits(n, 0.0);
    for (InstrId i : stalls.byOriginal.indices())
        if (i.value() < n)
            for (const auto& [word, count] : stalls.byOriginal[i].byWord)
                if (const auto reason = eval::parseStallWord(word); !reason || !eval::isIssueSide(*reason))
                    waits[i.value()] += double(count);
    std::vector<double> w(n, 0.0);
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const BasicBlock& b = analysis.cfg.blocks[size_t(analysis.cfg.blockOf[i])];
        const size_t lo = std::max<size_t>(b.first, i >= size_t(window) ? i - size_t(window) : 0);
        const size_t hi = std::min<size_t>(b.end, i + size_t(window) + 1);
        for (size_t j = lo; j < hi; ++j)
            w[i] += waits[j];
        sum += w[i];
    }
    const double floor = n && sum > 0 ? 0.1 * sum / double(n) : 1.0;
    for (double& x : w)
        x += floor;
    return w;
}

} // namespace sassx
