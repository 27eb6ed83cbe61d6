#include "core/rewrite/line_table.h"

#include <cstdio>

namespace sassx {

namespace {

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
    return buf;
}

} // namespace

Result<int> kernelLineSequence(const LineTable& table, const Kernel& k)
{
    int found = -1;
    for (size_t i = 0; i < table.sequences.size(); ++i) {
        const LineSequence& s = table.sequences[i];
        if (s.textSection < 0)
            return makeError(table.section + ": the sequence at " + hex(s.begin) +
                             " has no relocated DW_LNE_set_address, so the code it describes is unknown");
        if (s.textSection != k.textSection) continue;
        if (found >= 0)
            return makeError(table.section + " has more than one sequence for " + k.name +
                             " (sassx rewrites one per kernel)");
        found = int(i);
    }
    if (found < 0) return -1;
    const LineSequence& s = table.sequences[size_t(found)];
    if (!s.unsupported.empty()) return makeError(s.unsupported);
    if (s.rows.empty()) return -1;
    if (s.endAddress % 16 || s.endAddress > k.codeSize)
        return makeError(table.section + ": the sequence for " + k.name + " ends at " + hex(s.endAddress) +
                         ", not at an instruction boundary inside the code (" + hex(k.codeSize) + " bytes)");
    for (const LineRow& r : s.rows)
        if (r.address % 16 || r.address >= s.endAddress)
            return makeError(
                table.section + ": a row of " + k.name + " starts at " + hex(r.address) +
                (r.address % 16 ? ", inside an instruction" : ", at or past the sequence's end"));
    return found;
}

Result<LineCoverage> lineTableCoverage(const Cubin& cubin, int section, const Kernel& k)
{
    auto table = decodeLineTable(cubin, section);
    if (!table) return table.error();
    auto seq = kernelLineSequence(*table, k);
    if (!seq) return seq.error();
    if (*seq < 0) return LineCoverage{};
    const LineSequence& s = table->sequences[size_t(*seq)];
    return LineCoverage{true, uint32_t(s.rows.front().address / 16), uint32_t(s.endAddress / 16)};
}

} // namespace sassx
