#include "core/cubin/line_program.h"

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

constexpr uint32_t R_CUDA_64 = 2;

// Bounds-checked reads; the first failure is kept with the offset where it happened.
struct Cursor
{
    std::span<const uint8_t> d;
    uint64_t pos = 0;
    uint64_t limit = 0;
    std::string err;

    bool fail(const std::string& what, uint64_t at)
    {
        if (err.empty()) err = what + " at " + hex(at);
        return false;
    }
    template <class T> bool fixed(T* out)
    {
        if (pos > limit || limit - pos < sizeof(T)) return fail("truncated field", pos);
        std::memcpy(out, d.data() + pos, sizeof(T));
        pos += sizeof(T);
        return true;
    }
    bool uleb(uint64_t* out)
    {
        const uint64_t at = pos;
        uint64_t v = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (pos >= limit) return fail("truncated ULEB128", at);
            const uint8_t b = d[pos++];
            const uint64_t slice = b & 0x7f;
            if (shift >= 64 ? slice != 0 : (slice << shift) >> shift != slice)
                return fail("ULEB128 wider than 64 bits", at);
            if (shift < 64) v |= slice << shift;
            if (!(b & 0x80)) break;
        }
        *out = v;
        return true;
    }
    bool sleb(int64_t* out)
    {
        const uint64_t at = pos;
        uint64_t v = 0;
        unsigned shift = 0;
        uint8_t b = 0;
        do {
            if (pos >= limit) return fail("truncated SLEB128", at);
            b = d[pos++];
            if (shift >= 64 && (b & 0x7f) != 0 && (b & 0x7f) != 0x7f)
                return fail("SLEB128 wider than 64 bits", at);
            if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
            shift += 7;
        } while (b & 0x80);
        if (shift < 64 && (b & 0x40)) v |= ~0ull << shift;
        *out = int64_t(v);
        return true;
    }
};

// A NUL-terminated string inside the header; false (with the cursor's error) when it runs past it.
bool cString(Cursor& c, std::string* out)
{
    const uint64_t at = c.pos;
    const uint8_t* begin = c.d.data() + c.pos;
    const void* nul = c.pos < c.limit ? std::memchr(begin, 0, c.limit - c.pos) : nullptr;
    if (!nul) return c.fail("unterminated string", at);
    out->assign(reinterpret_cast<const char*>(begin), static_cast<const uint8_t*>(nul) - begin);
    c.pos += out->size() + 1;
    return true;
}

// include_directories and file_names (DWARF 4 §6.2.4 items 11 and 12), each ended by an empty name,
// read inside the header (the cursor's limit); a problem stops the reading and is noted.
void parseFileTable(Cursor& c, LineProgramHeader& h)
{
    Cursor in{c.d, c.pos, c.limit, {}};
    std::string s;
    while (cString(in, &s) && !s.empty())
        h.includeDirectories.push_back(s);
    uint64_t mtime = 0, length = 0;
    while (in.err.empty() && cString(in, &s) && !s.empty()) {
        LineProgramHeader::FileEntry f{s, 0};
        if (!in.uleb(&f.directory) || !in.uleb(&mtime) || !in.uleb(&length)) break;
        h.fileNames.push_back(std::move(f));
    }
    if (!in.err.empty())
        h.fileTableProblem = "the file table of the unit at " + hex(h.unitOffset) + ": " + in.err;
}

Result<LineProgramHeader> parseHeader(Cursor& c)
{
    LineProgramHeader h;
    h.unitOffset = c.pos;
    uint32_t len32 = 0;
    uint64_t len = 0;
    if (!c.fixed(&len32)) return makeError(c.err);
    if (len32 == 0xffffffffu) {
        if (!c.fixed(&len)) return makeError(c.err);
        h.dwarf64 = true;
    } else if (len32 >= 0xfffffff0u) {
        return makeError("reserved unit length " + hex(len32) + " at " + hex(h.unitOffset));
    } else {
        len = len32;
    }
    if (len > c.limit - c.pos)
        return makeError("the unit at " + hex(h.unitOffset) + " runs past the section (" + hex(len) +
                         " bytes)");
    h.unitEnd = c.pos + len;
    c.limit = h.unitEnd;
    if (!c.fixed(&h.version)) return makeError(c.err);
    if (h.version < 2 || h.version > 5)
        return makeError("DWARF line table version " + std::to_string(h.version) + " at " +
                         hex(h.unitOffset) + " (sassx reads versions 2 to 5)");
    if (h.version >= 5) {
        uint8_t addressSize = 0, segmentSelectorSize = 0;
        if (!c.fixed(&addressSize) || !c.fixed(&segmentSelectorSize)) return makeError(c.err);
        if (segmentSelectorSize != 0)
            return makeError("segmented addresses in the unit at " + hex(h.unitOffset));
    }
    uint64_t headerLength = 0;
    uint32_t headerLength32 = 0;
    if (h.dwarf64 ? !c.fixed(&headerLength) : !c.fixed(&headerLength32)) return makeError(c.err);
    if (!h.dwarf64) headerLength = headerLength32;
    if (headerLength > c.limit - c.pos)
        return makeError("the header of the unit at " + hex(h.unitOffset) + " runs past the unit");
    h.programOffset = c.pos + headerLength;
    c.limit = h.programOffset; // the fixed fields below must lie inside the header
    uint8_t isStmt = 0, lineRange = 0;
    if (!c.fixed(&h.minInstLength) || (h.version >= 4 && !c.fixed(&h.maxOpsPerInst)) || !c.fixed(&isStmt) ||
        !c.fixed(&h.lineBase) || !c.fixed(&lineRange) || !c.fixed(&h.opcodeBase))
        return makeError(c.err);
    h.defaultIsStmt = isStmt != 0;
    h.lineRange = lineRange;
    if (h.minInstLength == 0)
        return makeError("minimum_instruction_length 0 in the unit at " + hex(h.unitOffset));
    if (h.opcodeBase == 0) return makeError("opcode_base 0 in the unit at " + hex(h.unitOffset));
    if (uint64_t(h.opcodeBase - 1) > c.limit - c.pos)
        return makeError("standard_opcode_lengths run past the header of the unit at " + hex(h.unitOffset));
    h.standardOpcodeLengths.assign(c.d.begin() + c.pos, c.d.begin() + c.pos + (h.opcodeBase - 1));
    c.pos += h.opcodeBase - 1;
    if (h.version <= 4)
        parseFileTable(c, h);
    else
        h.fileTableProblem = "DWARF 5 file tables are not read";
    c.pos = h.programOffset;
    c.limit = h.unitEnd;
    return h;
}

// The state machine of §6.2.2 for one unit, appending its sequences to the table. Structure errors (a
// length past the unit, a truncated operand) fail the whole table; what only makes one sequence
// impossible to rewrite is noted in that sequence.
class UnitDecoder
{
public:
    UnitDecoder(Cursor& c, size_t unit, LineTable& table)
        : m_c(c), m_unit(unit), m_h(table.units[unit]), m_table(table)
    {
        reset();
    }

    Status run()
    {
        while (m_c.pos < m_h.unitEnd) {
            const uint64_t at = m_c.pos;
            uint8_t op = 0;
            if (!m_c.fixed(&op)) return fail();
            Status st = Ok{};
            if (op >= m_h.opcodeBase)
                special(op, at);
            else if (op == 0)
                st = extended(at);
            else
                st = standard(op, at);
            if (!st) return st;
        }
        if (m_c.pos != m_seq.begin)
            return makeError(m_table.section + ": the program of the unit at " + hex(m_h.unitOffset) +
                             " ends without DW_LNE_end_sequence");
        return Ok{};
    }

private:
    Error fail() const { return makeError(m_table.section + ": " + m_c.err); }

    void reset()
    {
        m_seq = LineSequence{};
        m_seq.unit = m_unit;
        m_seq.begin = m_c.pos;
        m_st = LineRow{};
        m_st.isStmt = m_h.defaultIsStmt;
        if (m_h.maxOpsPerInst != 1) // VLIW op_index addressing: nothing ptxas writes
            unsupported("maximum_operations_per_instruction " + std::to_string(m_h.maxOpsPerInst),
                        m_h.unitOffset);
    }

    void unsupported(const std::string& why, uint64_t at)
    {
        if (m_seq.unsupported.empty()) m_seq.unsupported = m_table.section + ": " + why + " at " + hex(at);
    }

    void advance(uint64_t by, uint64_t at)
    {
        if (__builtin_add_overflow(m_st.address, by, &m_st.address)) unsupported("the address overflows", at);
    }

    void emit(uint64_t at)
    {
        if (!m_seq.rows.empty() && m_st.address < m_seq.rows.back().address)
            unsupported("the address decreases", at);
        m_seq.rows.push_back(m_st);
        m_st.basicBlock = m_st.prologueEnd = m_st.epilogueBegin = false;
        m_st.discriminator = 0;
    }

    void special(uint8_t op, uint64_t at)
    {
        if (m_h.lineRange == 0) return unsupported("a special opcode with line_range 0", at);
        const uint8_t adjusted = op - m_h.opcodeBase;
        advance(uint64_t(adjusted / m_h.lineRange) * m_h.minInstLength, at);
        m_st.line += m_h.lineBase + adjusted % m_h.lineRange;
        emit(at);
    }

    // ULEB128 length, sub-opcode, operands; an unknown one is skipped by its length.
    Status extended(uint64_t at)
    {
        uint64_t len = 0;
        if (!m_c.uleb(&len)) return fail();
        if (len == 0 || len > m_c.limit - m_c.pos)
            return makeError(m_table.section + ": extended opcode length " + std::to_string(len) + " at " +
                             hex(at) + (len ? " runs past the unit" : ""));
        const uint64_t next = m_c.pos + len;
        const uint8_t sub = m_c.d[m_c.pos];
        Cursor in{m_c.d, m_c.pos + 1, next, {}};
        switch (sub) {
        case LNE_end_sequence:
            m_seq.endAddress = m_st.address;
            m_seq.endContext = m_st.context;
            m_seq.endFunctionName = m_st.functionName;
            m_seq.end = next;
            if (len != 1) unsupported("DW_LNE_end_sequence with operands", at);
            if (!m_seq.rows.empty() && m_st.address < m_seq.rows.back().address)
                unsupported("the end address decreases", at);
            m_table.sequences.push_back(std::move(m_seq));
            m_c.pos = next;
            reset();
            return Ok{};
        case LNE_set_address:
            setAddress(in, len - 1, at);
            break;
        case LNE_set_discriminator:
            if (!in.uleb(&m_st.discriminator) || in.pos != next)
                unsupported("a malformed DW_LNE_set_discriminator", at);
            break;
        case LNE_nv_inlined_at:
            if (!in.uleb(&m_st.context) || !in.uleb(&m_st.functionName) || in.pos != next)
                unsupported("a malformed NVIDIA inlining opcode 0x90", at);
            break;
        case LNE_define_file: // changes the file table mid-program: rows could not be reordered past it
        default:
            unsupported("extended opcode " + hex(sub), at);
            break;
        }
        m_c.pos = next;
        return Ok{};
    }

    // Only as a sequence's first opcode (where ptxas puts it, relocated): its operand is what
    // decodeLineTable relocates, and rows before it would have no defined address.
    void setAddress(Cursor& in, uint64_t size, uint64_t at)
    {
        if (size == 8) {
            in.fixed(&m_st.address);
        } else if (size == 4) {
            uint32_t a = 0;
            in.fixed(&a);
            m_st.address = a;
        } else {
            return unsupported("a " + std::to_string(size) + "-byte DW_LNE_set_address", at);
        }
        if (at != m_seq.begin) return unsupported("DW_LNE_set_address inside a sequence", at);
        m_seq.prologueEnd = in.limit;
        m_seq.addressOperand = in.limit - size;
        m_seq.addressSize = uint8_t(size);
        m_seq.startAddress = m_st.address;
    }

    // An opcode whose operand count the header does not give as DWARF does is skipped by the header's
    // count; its meaning is unknown.
    Status standard(uint8_t op, uint64_t at)
    {
        uint64_t u = 0;
        int64_t s = 0;
        uint16_t half = 0;
        bool ok = true;
        if (!m_h.definesStandard(op)) {
            for (uint8_t k = 0; k < m_h.standardOpcodeLengths[op - 1] && ok; ++k)
                ok = m_c.uleb(&u);
            unsupported("standard opcode " + std::to_string(op) + " with " +
                            std::to_string(m_h.standardOpcodeLengths[op - 1]) + " operand(s)",
                        at);
            return ok ? Status(Ok{}) : Status(fail());
        }
        switch (op) {
        case LNS_copy:
            emit(at);
            break;
        case LNS_advance_pc:
            if ((ok = m_c.uleb(&u))) advance(u * m_h.minInstLength, at);
            break;
        case LNS_advance_line:
            if ((ok = m_c.sleb(&s)) && __builtin_add_overflow(m_st.line, s, &m_st.line))
                unsupported("the line overflows", at);
            break;
        case LNS_set_file:
            ok = m_c.uleb(&m_st.file);
            break;
        case LNS_set_column:
            ok = m_c.uleb(&m_st.column);
            break;
        case LNS_negate_stmt:
            m_st.isStmt = !m_st.isStmt;
            break;
        case LNS_set_basic_block:
            m_st.basicBlock = true;
            break;
        case LNS_const_add_pc:
            if (m_h.lineRange)
                advance(uint64_t((255 - m_h.opcodeBase) / m_h.lineRange) * m_h.minInstLength, at);
            else
                unsupported("DW_LNS_const_add_pc with line_range 0", at);
            break;
        case LNS_fixed_advance_pc:
            if ((ok = m_c.fixed(&half))) advance(half, at);
            break;
        case LNS_set_prologue_end:
            m_st.prologueEnd = true;
            break;
        case LNS_set_epilogue_begin:
            m_st.epilogueBegin = true;
            break;
        case LNS_set_isa:
            ok = m_c.uleb(&m_st.isa);
            break;
        }
        return ok ? Status(Ok{}) : Status(fail());
    }

    Cursor& m_c;
    size_t m_unit;
    const LineProgramHeader& m_h;
    LineTable& m_table;
    LineSequence m_seq;
    LineRow m_st;
};

// Each row's inlining context must name an earlier row of its sequence.
void checkContexts(LineSequence& s, const std::string& sec)
{
    for (size_t r = 0; r < s.rows.size() && s.unsupported.empty(); ++r)
        if (s.rows[r].context > r)
            s.unsupported = sec + ": row " + std::to_string(r + 1) + " of the sequence at " + hex(s.begin) +
                            " names row " + std::to_string(s.rows[r].context) +
                            " as its call site, which does not precede it";
}

} // namespace

bool LineProgramHeader::definesStandard(uint8_t op) const
{
    return op >= 1 && op < opcodeBase && op <= LNS_set_isa &&
           standardOpcodeLengths[op - 1] == kStandardOperands[op];
}

std::string LineProgramHeader::filePath(uint64_t file) const
{
    if (file == 0 || file > fileNames.size()) return {};
    const FileEntry& f = fileNames[file - 1];
    if (f.name.starts_with('/') || f.directory == 0 || f.directory > includeDirectories.size()) return f.name;
    const std::string& dir = includeDirectories[f.directory - 1];
    return dir.ends_with('/') ? dir + f.name : dir + "/" + f.name;
}

bool LineRow::sameExceptAddress(const LineRow& o) const
{
    LineRow a = *this;
    a.address = o.address;
    return a == o;
}

Result<LineTable> decodeLineProgram(std::span<const uint8_t> data, const std::string& sectionName)
{
    LineTable table;
    table.section = sectionName;
    Cursor c{data, 0, data.size(), {}};
    while (c.pos < data.size()) {
        c.limit = data.size();
        auto h = parseHeader(c);
        if (!h) return makeError(sectionName + ": " + h.message());
        table.units.push_back(std::move(*h));
        const size_t first = table.sequences.size();
        if (auto st = UnitDecoder(c, table.units.size() - 1, table).run(); !st) return st.error();
        for (size_t s = first; s < table.sequences.size(); ++s)
            checkContexts(table.sequences[s], sectionName);
        c.pos = table.units.back().unitEnd;
    }
    return table;
}

Result<LineTable> decodeLineTable(const Cubin& cubin, int section)
{
    if (section < 0 || section >= int(cubin.sections().size())) return makeError("no such line section");
    const auto data = cubin.sectionData(section);
    auto table = decodeLineProgram(data, cubin.sections()[section].name);
    if (!table) return table;
    // Attribute each sequence to the code section its relocated DW_LNE_set_address names, and make its
    // addresses offsets into that section: S + A, with A from the entry (RELA) or the bytes (REL).
    for (LineSequence& s : table->sequences) {
        if (!s.prologueEnd) continue;
        for (const Relocation& r : cubin.relocations()) {
            if (r.targetSection != section || r.offset != s.addressOperand) continue;
            if (r.type != R_CUDA_64 || s.addressSize != 8 || r.symbol >= cubin.symbols().size()) {
                if (s.unsupported.empty())
                    s.unsupported = table->section + ": relocation type " + std::to_string(r.type) +
                                    " on the DW_LNE_set_address at " + hex(s.addressOperand);
                break;
            }
            const ElfSymbol& sym = cubin.symbols()[r.symbol];
            const uint64_t base = sym.value + (r.hasAddend ? uint64_t(r.addend) : s.startAddress);
            auto rebase = [&](uint64_t& a) { a = a - s.startAddress + base; };
            for (LineRow& row : s.rows)
                rebase(row.address);
            rebase(s.endAddress);
            s.startAddress = base;
            s.textSection = sym.shndx;
            break;
        }
    }
    return table;
}

} // namespace sassx
