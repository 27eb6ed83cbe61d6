#include "core/rewrite/ffma_interleave.h"

#include "core/rewrite/block_positions.h"

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

PatternEdits ffmaInterleaveEdits(const LegalityChecker& checker, const Schedule& current, Position first,
                                 Position end, InterleaveReuse reuse)
{
    PatternEdits out;
    const auto& a = checker.analysis();
    end = std::min(end, Position(current.size()));
    Schedule trial = current;
    auto isFfma = [&](Position p) { return a.listing.instructions[current.order[p].value()].op == Op::FFMA; };
    for (Position p = first; p < end;) {
        if (!isFfma(p)) {
            ++p;
            continue;
        }
        const int block = blockAt(a.cfg, p);
        Position q = p;
        while (q < end && isFfma(q) && blockAt(a.cfg, q) == block)
            ++q;
        const uint32_t length = uint32_t(q - p);
        if (length >= kMinRun) {
            ++out.runs;
            const uint32_t considered = length * 9 / 16;
            std::set<int> seen;
            bool lastKept = false;
            int lastKey = -2;
            for (Position k = p; k < p + considered; ++k) {
                const InstrId i = current.order[k];
                const int key = keyRegister(a.listing.instructions[i.value()]);
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
