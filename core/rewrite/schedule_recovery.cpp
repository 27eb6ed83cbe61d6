#include "core/rewrite/schedule_recovery.h"

#include <cstdio>
#include <cstring>

namespace sassx {

std::optional<Schedule> recoverSchedule(const KernelAnalysis& a, const Cubin& cubin, const Kernel& k)
{
    auto s = recoverScheduleExplained(a, cubin, k);
    if (!s) return std::nullopt;
    return std::move(*s);
}

Result<Schedule> recoverScheduleExplained(const KernelAnalysis& a, const Cubin& cubin, const Kernel& k)
{
    const auto text = cubin.sectionData(k.textSection);
    const auto& insts = a.listing.instructions;
    if (text.size() < insts.size() * 16) // trailing padding may be left out, so only shorter is refused
        return makeError("its code is " + std::to_string(text.size()) + " bytes, shorter than the " +
                         std::to_string(insts.size()) + " instructions of the original");
    constexpr uint64_t controlMask = 0x1FFFFFull << 41;
    Schedule s = Schedule::identity(a);
    std::vector<char> used(insts.size(), 0);
    for (uint32_t pos = 0; pos < insts.size(); ++pos) {
        uint64_t lo = 0, hi = 0;
        std::memcpy(&lo, text.data() + pos * 16, 8);
        std::memcpy(&hi, text.data() + pos * 16 + 8, 8);
        const BasicBlock& b = a.cfg.blocks[size_t(a.cfg.blockOf[pos])];
        bool found = false;
        for (uint32_t i = b.first; i < b.end && !found; ++i)
            if (!used[i] && insts[i].lo == lo && (insts[i].hi & ~controlMask) == (hi & ~controlMask)) {
                used[i] = 1;
                s.order[Position(pos)] = InstrId(i);
                s.control[InstrId(i)] = Control::decode(hi);
                found = true;
            }
        if (!found) {
            char where[96];
            std::snprintf(where, sizeof where, "the word at 0x%04x (%016llx %016llx)", pos * 16,
                          static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi));
            return makeError(std::string(where) +
                             " is none of the original's instructions in its block (the " + "original has '" +
                             insts[pos].text() + "' there): not a reordering of the same instructions");
        }
    }
    return s;
}

} // namespace sassx
