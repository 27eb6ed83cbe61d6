#include "core/rewrite/ffma_interleave.h"

#include <set>

namespace sassx {
namespace {

constexpr int kMinRun = 8;     // DeepGEMM looks at runs of at least 8 FFMAs
constexpr uint8_t kRbFlag = 2; // reuse slot 1 (Rb), bit 59 of the high word

// The second-to-last register operand as printed ("FFMA R1, R2, R3, R4" → R3): DeepGEMM's key.
int keyRegister(const Instruction& ins)
{
    std::vector<int> regs;
    for (const auto& op : ins.operands)
        if (op.kind == Operand::Kind::Register && op.reg && op.reg->file == RegFile::R)
            regs.push_back(op.reg->index);
    return regs.size() >= 2 ? regs[regs.size() - 2] : -1;
}

} // namespace

const char* interleavePatternName(InterleaveReuse reuse)
{
    return reuse == InterleaveReuse::Keep ? "ffma-interleave-keep-reuse" : "ffma-interleave";
}

std::optional<InterleaveReuse> interleavePatternFromName(const std::string& name)
{
    for (InterleaveReuse r : {InterleaveReuse::Clear, InterleaveReuse::Keep})
        if (name == interleavePatternName(r)) return r;
    return std::nullopt;
}

PatternEdits ffmaInterleaveEdits(const LegalityChecker& checker, const Schedule& current, uint32_t first,
                                 uint32_t end, InterleaveReuse reuse)
{
    PatternEdits out;
    const auto& a = checker.analysis();
    const uint32_t n = uint32_t(current.order.size());
    end = std::min(end, n);
    Schedule trial = current;
    auto isFfma = [&](uint32_t p) { return a.listing.instructions[current.order[p]].op == Op::FFMA; };
    for (uint32_t p = first; p < end;) {
        if (!isFfma(p)) {
            ++p;
            continue;
        }
        const int block = a.cfg.blockOf[p];
        uint32_t q = p;
        while (q < end && isFfma(q) && a.cfg.blockOf[q] == block)
            ++q;
        const uint32_t length = q - p;
        if (length >= kMinRun) {
            ++out.runs;
            const uint32_t considered = length * 9 / 16;
            std::set<int> seen;
            bool lastKept = false;
            int lastKey = -2;
            for (uint32_t k = p; k < p + considered; ++k) {
                const uint32_t i = current.order[k];
                const int key = keyRegister(a.listing.instructions[i]);
                const Control before = trial.control[i];
                bool kept = (before.reuse & kRbFlag) != 0;
                if (kept && (!seen.count(key) || (lastKept && key == lastKey))) {
                    const bool clear = reuse == InterleaveReuse::Clear;
                    const Edit edit = Edit::control(
                        k, std::nullopt, uint8_t((before.yield & 1) ^ 1),
                        clear ? std::optional<uint8_t>(uint8_t(before.reuse & ~kRbFlag)) : std::nullopt);
                    trial.control[i].yield = *edit.yield;
                    if (edit.reuse) trial.control[i].reuse = *edit.reuse;
                    const auto report =
                        checker.check(trial, CheckOptions{.stopAtFirst = true, .blocks = {block}});
                    if (report.legal()) {
                        out.edits.push_back(edit);
                        kept = !clear;
                    } else {
                        trial.control[i] = before;
                        out.refused.push_back(report.summary());
                    }
                }
                seen.insert(key);
                lastKept = kept;
                lastKey = key;
            }
        }
        p = q;
    }
    return out;
}

} // namespace sassx
