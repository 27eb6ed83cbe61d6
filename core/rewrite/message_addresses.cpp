#include "core/rewrite/message_addresses.h"

#include "core/analysis/kernel_analysis.h"

#include <cctype>
#include <cstdio>

namespace sassx {

std::string withScheduleAddresses(const std::string& message, const KernelAnalysis& a, const Schedule& shown)
{
    static const std::string marker = " at 0x";
    const auto& insts = a.listing.instructions;
    if (shown.order.size() != insts.size()) return message;
    const IndexVector<InstrId, Position> positionOf = shown.positionOf();
    std::string out;
    size_t copied = 0;
    for (size_t at = message.find(marker); at != std::string::npos; at = message.find(marker, at + 1)) {
        const size_t digits = at + marker.size();
        size_t end = digits;
        while (end < message.size() && std::isxdigit(static_cast<unsigned char>(message[end])))
            ++end;
        if (end == digits) continue;
        const unsigned long long offset = std::stoull(message.substr(digits, end - digits), nullptr, 16);
        const uint64_t i = offset / 16;
        if (offset % 16 != 0 || i >= insts.size() || insts[i].offset != offset) continue;
        const std::string& opcode = insts[i].opcode;
        if (at < opcode.size() || message.compare(at - opcode.size(), opcode.size(), opcode) != 0) continue;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%04llx",
                      static_cast<unsigned long long>(positionOf[InstrId(uint32_t(i))].value()) * 16);
        out.append(message, copied, digits - copied);
        out += buf;
        copied = end;
    }
    out.append(message, copied, std::string::npos);
    return out;
}

} // namespace sassx
