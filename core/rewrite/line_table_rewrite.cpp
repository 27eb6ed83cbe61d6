// Rewriting a line table for a new instruction order: which rows each instruction gets (planRows), how
// they are encoded (as ptxas encodes them), and how the section is spliced (rewriteLineTable).
#include "core/rewrite/line_table.h"

#include <cstdio>
#include <cstring>

namespace sassx {

using namespace dwarf_line;

namespace {

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
    return buf;
}

void putUleb(std::vector<uint8_t>& out, uint64_t v, size_t extraBytes = 0)
{
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v || extraBytes) b |= 0x80;
        out.push_back(b);
    } while (v);
    // Over-long encoding: continuation bytes that add zero bits (DWARF 5 §7.6 allows them).
    for (; extraBytes; --extraBytes)
        out.push_back(extraBytes > 1 ? 0x80 : 0x00);
}

// ptxas writes DW_LNS_advance_pc's operand as if it were signed (64 is c0 00, not 40): still a valid
// ULEB128 of the same value, and byte-for-byte what ptxas emits.
void putUlebAsPtxas(std::vector<uint8_t>& out, uint64_t v)
{
    for (bool more = true; more;) {
        const uint8_t b = v & 0x7f;
        v >>= 7;
        more = v != 0 || (b & 0x40);
        out.push_back(more ? b | 0x80 : b);
    }
}

void putSleb(std::vector<uint8_t>& out, int64_t v)
{
    for (bool more = true; more;) {
        uint8_t b = v & 0x7f;
        v >>= 7; // arithmetic shift
        more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
        out.push_back(more ? b | 0x80 : b);
    }
}

// The rows of sequence s after the move: every instruction gets the rows that governed it (the group of
// rows at the last address at or before it), at its new address. A group is written where the
// instruction that owns it (the one at its address) lands, and again wherever another instruction it
// governs lands after different rows. A copied row's context is renumbered to the latest copy of its
// call-site row, which is written first (at the same address) when it has not been yet. The identity
// order gives back exactly the original rows.
Result<std::vector<LineRow>> planRows(const LineSequence& s, const IndexVector<Position, InstrId>& order,
                                      const std::string& what)
{
    // Addresses are code offsets: the sequence's [first, end) in the original code are instructions,
    // and in the rewritten code positions.
    const uint32_t first = uint32_t(s.rows.front().address / 16), end = uint32_t(s.endAddress / 16);
    for (Position pp : order.indices()) {
        const uint32_t p = pp.value(), i = order[pp].value();
        if ((p < first) != (i < first) || (p >= end) != (i >= end))
            return makeError("the instruction at " + hex(uint64_t(i) * 16) + " would move across " +
                             hex(uint64_t((p < first) != (i < first) ? first : end) * 16) +
                             ", an end of the rows " + what + " holds for it");
    }
    std::vector<size_t> groupStart;
    for (size_t r = 0; r < s.rows.size(); ++r)
        if (r == 0 || s.rows[r].address != s.rows[r - 1].address) groupStart.push_back(r);
    groupStart.push_back(s.rows.size());
    std::vector<size_t> governing(end - first);
    for (size_t g = 0, i = first; i < end; ++i) {
        while (g + 1 < groupStart.size() - 1 && s.rows[groupStart[g + 1]].address <= i * 16)
            ++g;
        governing[i - first] = g;
    }
    auto sameContent = [&](size_t a, size_t b) {
        if (groupStart[a + 1] - groupStart[a] != groupStart[b + 1] - groupStart[b]) return false;
        for (size_t k = 0; k < groupStart[a + 1] - groupStart[a]; ++k)
            if (!s.rows[groupStart[a] + k].sameExceptAddress(s.rows[groupStart[b] + k])) return false;
        return true;
    };

    std::vector<LineRow> out;
    std::vector<uint64_t> latest(s.rows.size(), 0); // 1-based number of the latest copy of each row
    auto emit = [&](size_t r, uint64_t address) {
        std::vector<size_t> chain{r}; // r, then call sites not yet written (contexts strictly decrease)
        while (s.rows[chain.back()].context && !latest[s.rows[chain.back()].context - 1])
            chain.push_back(s.rows[chain.back()].context - 1);
        for (size_t k = chain.size(); k-- > 0;) {
            LineRow row = s.rows[chain[k]];
            row.address = address;
            if (row.context) row.context = latest[row.context - 1];
            out.push_back(row);
            latest[chain[k]] = out.size();
        }
    };
    long active = -1;
    for (uint32_t p = first; p < end; ++p) {
        const uint32_t i = order[Position(p)].value();
        const size_t g = governing[i - first];
        const bool owner = s.rows[groupStart[g]].address == uint64_t(i) * 16;
        // Rows already in effect (the same group, or for another instruction the same contents) are not
        // repeated; an instruction's own rows are written where it lands otherwise.
        if (active >= 0 && (size_t(active) == g || (!owner && sameContent(size_t(active), g)))) continue;
        for (size_t r = groupStart[g]; r < groupStart[g + 1]; ++r)
            emit(r, uint64_t(p) * 16);
        active = long(g);
    }
    return out;
}

// One encoding pass over the rows of a sequence; fileExtra over-long bytes on the first DW_LNS_set_file
// pad by exactly that much. The first unencodable thing is kept in m_err.
class Encoder
{
public:
    Encoder(const LineProgramHeader& h, uint64_t address, size_t fileExtra)
        : m_h(h), m_address(address), m_fileExtra(fileExtra)
    {
        m_st.isStmt = h.defaultIsStmt;
    }

    Result<std::vector<uint8_t>> run(const std::vector<LineRow>& rows, uint64_t endAddress,
                                     std::pair<uint64_t, uint64_t> finalContext)
    {
        for (size_t k = 0; k < rows.size() && m_err.empty(); ++k)
            row(rows[k], k == 0);
        uint64_t ops = 0;
        if (m_err.empty() && advance(endAddress, &ops) && ops)
            standard(LNS_advance_pc), putUlebAsPtxas(m_out, ops);
        if (std::pair{m_st.context, m_st.functionName} != finalContext)
            context(finalContext.first, finalContext.second);
        extended(LNE_end_sequence, {});
        if (!m_err.empty()) return makeError(m_err);
        return std::move(m_out);
    }

private:
    void standard(uint8_t op)
    {
        if (!m_h.definesStandard(op) && m_err.empty())
            m_err = "the header does not define standard opcode " + std::to_string(op) + " as DWARF does";
        m_out.push_back(op);
    }

    void extended(uint8_t sub, const std::vector<uint8_t>& operands)
    {
        m_out.push_back(0);
        putUleb(m_out, operands.size() + 1);
        m_out.push_back(sub);
        m_out.insert(m_out.end(), operands.begin(), operands.end());
    }

    void context(uint64_t ctx, uint64_t fn)
    {
        std::vector<uint8_t> ops;
        putUleb(ops, ctx);
        putUleb(ops, fn);
        extended(LNE_nv_inlined_at, ops);
    }

    bool advance(uint64_t to, uint64_t* ops)
    {
        if (to < m_address || (to - m_address) % m_h.minInstLength) {
            if (m_err.empty()) m_err = "cannot advance from " + hex(m_address) + " to " + hex(to);
            return false;
        }
        *ops = (to - m_address) / m_h.minInstLength;
        return true;
    }

    // ptxas's order: file (always on the first row), inlining context, the other registers, then line
    // and address.
    void row(const LineRow& r, bool first)
    {
        uint64_t ops = 0;
        int64_t dl = 0;
        if (!advance(r.address, &ops)) return;
        if (__builtin_sub_overflow(r.line, m_st.line, &dl)) {
            m_err = "a line delta overflows";
            return;
        }
        if (first || r.file != m_st.file)
            standard(LNS_set_file), putUleb(m_out, r.file, first ? m_fileExtra : 0);
        if (r.context != m_st.context || r.functionName != m_st.functionName)
            context(r.context, r.functionName);
        if (r.column != m_st.column) standard(LNS_set_column), putUleb(m_out, r.column);
        if (r.isStmt != m_st.isStmt) standard(LNS_negate_stmt);
        if (r.isa != m_st.isa) standard(LNS_set_isa), putUleb(m_out, r.isa);
        if (r.basicBlock) standard(LNS_set_basic_block);
        if (r.prologueEnd) standard(LNS_set_prologue_end);
        if (r.epilogueBegin) standard(LNS_set_epilogue_begin);
        if (r.discriminator) {
            std::vector<uint8_t> d;
            putUleb(d, r.discriminator);
            extended(LNE_set_discriminator, d);
        }
        // ptxas: DW_LNS_advance_line (even by 0) when the address stays, DW_LNS_advance_pc alone when
        // the line stays, a special opcode when both change and one fits, else both and DW_LNS_copy.
        const bool lineFits =
            m_h.lineRange && dl >= m_h.lineBase && dl < int64_t(m_h.lineBase) + m_h.lineRange;
        const uint64_t special = lineFits && ops < 256 ? uint64_t(dl - m_h.lineBase) +
                                                             uint64_t(m_h.lineRange) * ops + m_h.opcodeBase
                                                       : 256;
        if (ops == 0) {
            standard(LNS_advance_line), putSleb(m_out, dl), standard(LNS_copy);
        } else if (dl == 0) {
            standard(LNS_advance_pc), putUlebAsPtxas(m_out, ops), standard(LNS_copy);
        } else if (special <= 255) {
            m_out.push_back(uint8_t(special));
        } else {
            standard(LNS_advance_line), putSleb(m_out, dl), standard(LNS_advance_pc),
                putUlebAsPtxas(m_out, ops);
            standard(LNS_copy);
        }
        m_st = r;
        m_address = r.address;
    }

    const LineProgramHeader& m_h;
    uint64_t m_address;
    size_t m_fileExtra;
    LineRow m_st;
    std::vector<uint8_t> m_out;
    std::string m_err;
};

} // namespace

Result<LineTableEdit> rewriteLineTable(const Cubin& cubin, int section, const Kernel& k,
                                       const IndexVector<Position, InstrId>& order)
{
    auto table = decodeLineTable(cubin, section);
    if (!table) return table.error();
    const auto data = cubin.sectionData(section);
    LineTableEdit edit{section, std::vector<uint8_t>(data.begin(), data.end()), {}};
    auto seq = kernelLineSequence(*table, k);
    if (!seq) return seq.error();
    if (*seq < 0) return edit;
    const LineSequence& s = table->sequences[size_t(*seq)];
    if (order.size() != k.codeSize / 16)
        return makeError("the order covers " + std::to_string(order.size()) + " instructions, " + k.name +
                         " has " + std::to_string(k.codeSize / 16));
    auto rows = planRows(s, order, table->section);
    if (!rows) return rows.error();
    if (*rows == s.rows) return edit;
    if (!s.prologueEnd)
        return makeError(table->section + ": the sequence for " + k.name +
                         " does not open with DW_LNE_set_address");
    for (const Relocation& r : cubin.relocations())
        if (r.targetSection == section && r.offset >= s.prologueEnd && r.offset < s.end)
            return makeError(table->section + ": a relocation patches " + hex(r.offset) +
                             ", inside the opcodes of " + k.name + "'s rows");

    const LineProgramHeader& h = table->units[s.unit];
    const std::pair<uint64_t, uint64_t> finalContext{s.endContext, s.endFunctionName};
    const size_t oldBody = s.end - s.prologueEnd;
    auto body = encodeLineRows(h, *rows, s.startAddress, s.endAddress, finalContext);
    if (body && body->size() < oldBody)
        body = encodeLineRows(h, *rows, s.startAddress, s.endAddress, finalContext, oldBody);
    if (!body) return makeError(table->section + ": " + body.message());
    const uint64_t delta = body->size() - oldBody;

    std::vector<uint8_t> out(data.begin(), data.begin() + s.prologueEnd);
    out.insert(out.end(), body->begin(), body->end());
    out.insert(out.end(), data.begin() + s.end, data.end());
    if (delta) {
        // The unit grows; later units and sequences (other kernels) shift. Nothing else in a -lineinfo
        // cubin names offsets inside a line section (-G, whose .debug_info would, is refused in
        // patch_limits), so only the unit length and the relocations behind the sequence change.
        if (h.dwarf64) {
            uint64_t len = 0;
            std::memcpy(&len, out.data() + h.unitOffset + 4, 8);
            len += delta;
            std::memcpy(out.data() + h.unitOffset + 4, &len, 8);
        } else {
            uint32_t len = 0;
            std::memcpy(&len, out.data() + h.unitOffset, 4);
            if (uint64_t(len) + delta >= 0xfffffff0u)
                return makeError(table->section + ": the rewritten unit would outgrow 32-bit DWARF");
            len += uint32_t(delta);
            std::memcpy(out.data() + h.unitOffset, &len, 4);
        }
        for (size_t r = 0; r < cubin.relocations().size(); ++r) {
            const Relocation& rel = cubin.relocations()[r];
            if (rel.targetSection == section && rel.offset >= s.end)
                edit.relocationOffsets.push_back({r, rel.offset + delta});
        }
    }
    edit.bytes = std::move(out);
    return edit;
}

Result<std::vector<uint8_t>> encodeLineRows(const LineProgramHeader& h, const std::vector<LineRow>& rows,
                                            uint64_t startAddress, uint64_t endAddress,
                                            std::pair<uint64_t, uint64_t> finalContext, size_t padTo)
{
    auto out = Encoder(h, startAddress, 0).run(rows, endAddress, finalContext);
    if (!out || padTo == 0 || out->size() == padTo) return out;
    if (out->size() > padTo)
        return makeError("the rewritten rows need " + std::to_string(out->size()) + " bytes, more than " +
                         std::to_string(padTo));
    size_t pad = padTo - out->size();
    // One byte: an over-long first file operand. More: DW_LNS_advance_pc 0 (2 bytes, or 3 with an
    // over-long operand), which every consumer reads as "no change", before DW_LNE_end_sequence.
    if (pad == 1) {
        if (rows.empty()) return makeError("cannot pad an empty sequence by one byte");
        return Encoder(h, startAddress, 1).run(rows, endAddress, finalContext);
    }
    if (!h.definesStandard(LNS_advance_pc)) return makeError("the header does not define DW_LNS_advance_pc");
    std::vector<uint8_t> fill;
    if (pad % 2) fill.insert(fill.end(), {LNS_advance_pc, 0x80, 0x00}), pad -= 3;
    for (; pad; pad -= 2)
        fill.insert(fill.end(), {LNS_advance_pc, 0x00});
    out->insert(out->end() - 3, fill.begin(), fill.end()); // before the 3-byte DW_LNE_end_sequence
    return out;
}

} // namespace sassx
