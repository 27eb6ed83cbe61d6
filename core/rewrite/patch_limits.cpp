#include "core/rewrite/patch_limits.h"

#include "core/rewrite/line_table.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>

namespace sassx {

namespace {

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
    return buf;
}

template <class T> bool readAt(std::span<const uint8_t> d, uint64_t off, T* out)
{
    if (off > d.size() || sizeof(T) > d.size() - off) return false;
    std::memcpy(out, d.data() + off, sizeof(T));
    return true;
}

bool readUleb(std::span<const uint8_t> d, uint64_t& pos, uint64_t* out)
{
    uint64_t v = 0;
    for (int shift = 0; pos < d.size() && shift < 64; shift += 7) {
        uint8_t b = d[pos++];
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

bool skipLeb(std::span<const uint8_t> d, uint64_t& pos)
{
    uint64_t dummy;
    return readUleb(d, pos, &dummy);
}

// -G debug info: DIEs, location lists and register maps hold code offsets the writer does not rewrite.
// (Line tables are rewritten: core/rewrite/line_table.h.)
constexpr const char* kDebugInfoSections[] = {".debug_info", ".debug_loc", ".debug_ranges",
                                              ".nv_debug_info_reg_sass"};

// True when symbol `s` stands for the start of .text.K (the function symbol or the section symbol).
bool namesKernelStart(const Cubin& cubin, const Kernel& k, uint32_t s)
{
    if (s >= cubin.symbols().size()) return false;
    if (int(s) == k.symbol) return true;
    const ElfSymbol& sym = cubin.symbols()[s];
    constexpr uint8_t STT_SECTION = 3;
    return (sym.info & 0xf) == STT_SECTION && sym.shndx == k.textSection;
}

// The CFA rule as far as sassx follows it; any other rule change makes `changed` sticky.
struct Cfa
{
    uint64_t reg = 0, offset = 0;
    bool known = true;
    int otherOps = 0; // rules other than the CFA (offset/restore/same_value…) applied so far
    bool operator==(const Cfa&) const = default;
};

// DW_CFA_advance_loc*: 1 and the delta, 0 when the op at pos is not an advance, -1 when truncated.
int advanceOp(std::span<const uint8_t> d, uint64_t& pos, uint64_t end, uint64_t* delta)
{
    const uint8_t op = d[pos];
    if ((op >> 6) == 1) return *delta = op & 0x3f, ++pos, 1;
    auto take = [&](auto v) {
        if (!readAt(d, pos + 1, &v) || pos + 1 + sizeof(v) > end) return -1;
        *delta = v;
        pos += 1 + sizeof(v);
        return 1;
    };
    if (op == 0x02) return take(uint8_t{});
    if (op == 0x03) return take(uint16_t{});
    if (op == 0x04) return take(uint32_t{});
    return 0;
}

// Applies one non-advance call-frame op; false for an op it cannot size (DW_CFA_set_loc, vendor ops).
bool cfaOp(std::span<const uint8_t> d, uint64_t& pos, uint64_t end, Cfa& cfa)
{
    const uint8_t op = d[pos++];
    const uint8_t hi = op >> 6, lo = op & 0x3f;
    bool ok = true;
    uint64_t n = 0;
    if (hi == 2)
        ok = skipLeb(d, pos), ++cfa.otherOps; // DW_CFA_offset
    else if (hi == 3)
        ++cfa.otherOps; // DW_CFA_restore
    else if (hi == 0) {
        switch (lo) {
        case 0x00:
            break; // nop
        case 0x0c:
            ok = readUleb(d, pos, &cfa.reg) && readUleb(d, pos, &cfa.offset);
            break;
        case 0x0d:
            ok = readUleb(d, pos, &cfa.reg);
            break;
        case 0x0e:
            ok = readUleb(d, pos, &cfa.offset);
            break;
        case 0x0a:
        case 0x0b:
            ++cfa.otherOps;
            break;
        case 0x06:
        case 0x07:
        case 0x08:
        case 0x13:
        case 0x2e:
            ok = skipLeb(d, pos), ++cfa.otherOps;
            break;
        case 0x05:
        case 0x09:
        case 0x11:
        case 0x12:
        case 0x14:
        case 0x15:
        case 0x2f:
            ok = skipLeb(d, pos) && skipLeb(d, pos), ++cfa.otherOps;
            break;
        case 0x0f:
            ok = readUleb(d, pos, &n) && n <= end - pos, pos += n, ++cfa.otherOps;
            break;
        case 0x10:
        case 0x16:
            ok = skipLeb(d, pos) && readUleb(d, pos, &n) && n <= end - pos, pos += n, ++cfa.otherOps;
            break;
        default:
            return false;
        }
    } else {
        return false;
    }
    return ok && pos <= end;
}

// .debug_frame (64-bit DWARF CFI as ptxas writes it): every FDE of this kernel's code contributes its
// start, its end and every row boundary (DW_CFA_advance_loc*) as fences. A row covers the same
// instructions after a schedule that crosses none of them, so the section needs no update.
void scanDebugFrame(const Cubin& cubin, const Kernel& k, PatchLimits& out)
{
    const int sec = cubin.findSection(".debug_frame");
    if (sec < 0) return;
    const auto d = cubin.sectionData(sec);
    // Which FDE locations are relocated against this kernel: r_offset → addend.
    std::map<uint64_t, int64_t> kernelLocs;
    for (const Relocation& r : cubin.relocations())
        if (r.targetSection == sec && namesKernelStart(cubin, k, r.symbol)) kernelLocs[r.offset] = r.addend;
    if (kernelLocs.empty()) return;
    auto fail = [&](const std::string& why) {
        out.refuseAll = ".debug_frame could not be read (" + why + "), so the code offsets it holds for " +
                        k.name + " cannot be checked";
    };
    std::map<uint64_t, uint64_t> codeAlign; // CIE offset → code alignment factor
    std::map<uint64_t, Cfa> initialCfa;     // CIE offset → CFA rule after its initial instructions
    uint64_t pos = 0;
    while (pos < d.size()) {
        const uint64_t entryStart = pos;
        uint32_t len32 = 0;
        if (!readAt(d, pos, &len32)) return fail("truncated entry length");
        pos += 4;
        uint64_t len = len32, idSize = 4;
        if (len32 == 0xffffffffu) {
            if (!readAt(d, pos, &len)) return fail("truncated 64-bit length");
            pos += 8;
            idSize = 8;
        }
        if (len == 0) continue;
        if (len > d.size() - pos) return fail("an entry runs past the section");
        const uint64_t end = pos + len;
        uint64_t id = 0;
        if (idSize == 8 ? !readAt(d, pos, &id) : !readAt(d, pos, reinterpret_cast<uint32_t*>(&id)))
            return fail("truncated CIE id");
        pos += idSize;
        const bool isCie = idSize == 8 ? id == ~0ull : id == 0xffffffffull;
        if (isCie) {
            uint8_t version = 0;
            if (!readAt(d, pos, &version)) return fail("truncated CIE");
            ++pos;
            while (pos < end && d[pos] != 0)
                ++pos; // augmentation string
            ++pos;
            if (version >= 4) pos += 2; // address_size, segment_selector_size
            uint64_t align = 0;
            if (!readUleb(d, pos, &align) || align == 0) return fail("bad code alignment factor");
            codeAlign[entryStart] = align;
            uint64_t ra = 0;
            if (!skipLeb(d, pos) || !(version == 1 ? (++pos, true) : readUleb(d, pos, &ra)))
                return fail("truncated CIE");
            Cfa cfa;
            uint64_t p = pos;
            while (p < end && cfa.known) {
                if (!cfaOp(d, p, end, cfa)) cfa.known = false;
            }
            initialCfa[entryStart] = cfa;
            pos = end;
            continue;
        }
        const uint64_t locField = pos;
        uint64_t range = 0;
        if (!readAt(d, pos + 8, &range)) return fail("truncated FDE");
        pos += 16;
        auto loc = kernelLocs.find(locField);
        if (loc == kernelLocs.end()) {
            pos = end;
            continue; // another function's FDE
        }
        auto cie = codeAlign.find(id);
        if (cie == codeAlign.end()) return fail("an FDE names a CIE that precedes no entry");
        if (loc->second < 0) return fail("an FDE location has no readable addend");
        uint64_t at = uint64_t(loc->second);
        // Only a boundary where the rule changes constrains moves: ptxas restates the entry rule
        // (DW_CFA_def_cfa with the CIE's operands) after EXITs and pads with advances and nops.
        std::vector<uint64_t> rows{at, at + range};
        Cfa cfa = initialCfa[id];
        while (pos < end) {
            uint64_t delta = 0;
            const Cfa before = cfa;
            const int r = advanceOp(d, pos, end, &delta);
            if (r < 0) return fail("truncated call-frame instruction");
            if (r > 0) {
                at += delta * cie->second;
                continue;
            }
            if (!cfaOp(d, pos, end, cfa))
                return fail("call-frame op " + hex(d[pos]) + " in the FDE of " + k.name);
            if (!(cfa == before)) rows.push_back(at);
        }
        for (uint64_t b : rows) {
            if (b == 0 || b >= k.codeSize) continue; // the ends of the code are no constraint
            if (b % 16) return fail("a row starts at " + hex(b) + ", inside an instruction");
            out.fences.push_back({uint32_t(b / 16), ".debug_frame starts a call-frame row at " + hex(b) +
                                                        " that the writer keeps in place"});
        }
        pos = end;
    }
}

} // namespace

bool isValueOnlyAttribute(uint8_t a)
{
    switch (a) {
    case 0x02: // IMAGE_SLOT
    case 0x04: // CTAIDZ_USED
    case 0x05: // MAX_THREADS
    case 0x0a: // PARAM_CBANK (section symbol + offset/size in the constant bank)
    case 0x0b: // SMEM_PARAM_OFFSETS (shared-memory offsets, not code)
    case 0x0c: // CBANK_PARAM_OFFSETS (constant-bank offsets, not code)
    case 0x0d: // SYNC_STACK
    case 0x10: // REQNTID
    case 0x11: // FRAME_SIZE
    case 0x12: // MIN_STACK_SIZE
    case 0x17: // KPARAM_INFO
    case 0x18: // SMEM_PARAM_SIZE
    case 0x19: // CBANK_PARAM_SIZE
    case 0x1b: // MAXREG_COUNT
    case 0x1e: // CRS_STACK_SIZE
    case 0x21: // EXPLICIT_CACHING
    case 0x22: // ISTYPEP_USED
    case 0x23: // MAX_STACK_SIZE
    case 0x24: // SUQ_USED
    case 0x26: // LOAD_CACHE_REQUEST
    case 0x29: // COOP_GROUP_MAX_REGIDS
    case 0x2b: // WMMA_USED
    case 0x2f: // REGCOUNT
    case 0x32: // SHARED_SCRATCH
    case 0x36: // SW_WAR (a flag word)
    case 0x37: // CUDA_API_VERSION
    case 0x38: // NUM_MBARRIERS
    case 0x3b: // SAM_REGION_STACK_SIZE
    case 0x3d: // CTA_PER_CLUSTER
    case 0x3e: // EXPLICIT_CLUSTER
    case 0x3f: // MAX_CLUSTER_RANK
    case 0x41: // RESERVED_SMEM_USED
    case 0x42: // RESERVED_SMEM_0_SIZE
    case 0x45: // KPARAM_INFO_V2
    case 0x4c: // NUM_BARRIERS
    case 0x50: // SPARSE_MMA_MASK
    case 0x51: // TCGEN05_1CTA_USED
    case 0x52: // TCGEN05_2CTA_USED
    case 0x53: // GEN_ERRBAR_AT_EXIT
    case 0x54: // REG_RECONFIG
    case 0x56: // SANITIZE
    case 0x58: // STUB_FUNCTION_KIND
    // 0x5f (unnamed, every CUDA 13 kernel): format 3 (EIFMT_HVAL) with value 0x0000 or 0x0101 in all
    // 18 sample kernels inspected (CUDA sm_80..sm_90 and Triton, code sizes 0x200..0x9000 bytes). One
    // u16 that does not follow the code size and is never a non-zero multiple of 16 is a flag pair,
    // not an instruction offset.
    case 0x5f:
        return true;
    default:
        return false;
    }
}

PatchLimits patchLimits(const Cubin& cubin, const Kernel& k, const PatchOptions& options)
{
    PatchLimits out;
    const uint64_t n = k.codeSize / 16;
    auto pinOffset = [&](uint64_t off, const std::string& why) {
        if (off < k.codeSize && off % 16 == 0) out.pins.push_back({uint32_t(off / 16), why});
    };

    for (const char* s : kDebugInfoSections)
        if (cubin.findSection(s) >= 0) {
            out.refuseAll =
                std::string("the cubin carries ") + s +
                " (-G debug info), whose code offsets the writer does not rewrite; rebuild without -G";
            return out;
        }
    // Line tables follow their instructions (cubin_writer.cpp rewrites them); moves may not cross the ends
    // of the rows they hold for this kernel. A table that cannot be rewritten stops every move, unless
    // the caller accepts stale line info.
    if (!options.keepStaleLineInfo)
        for (const char* s : kLineTableSections) {
            const int sec = cubin.findSection(s);
            if (sec < 0) continue;
            auto cover = lineTableCoverage(cubin, sec, k);
            if (!cover) {
                out.refuseAll =
                    "the line table cannot be rewritten (" + cover.message() +
                    "); rebuild without -lineinfo, or accept stale line info (--keep-stale-line-info)";
                return out;
            }
            if (!cover->present) continue;
            for (uint32_t b : {cover->first, cover->end})
                if (b > 0 && b < n)
                    out.fences.push_back({b, "the rows " + std::string(s) + " holds for " + k.name +
                                                 " cover " + hex(uint64_t(cover->first) * 16) + " to " +
                                                 hex(uint64_t(cover->end) * 16) +
                                                 " only, so nothing may cross " + hex(uint64_t(b) * 16)});
        }

    for (const NvInfoAttribute& a : k.attributes) {
        const std::string name = nvinfo::attributeName(a.attribute);
        if (a.attribute == nvinfo::INDIRECT_BRANCH_TARGETS) {
            // Both the BRX and its targets: the constant-bank tables hold offsets the writer does not
            // rewrite (and may hold them relative to the branch).
            for (const InstrOffsetList& l : k.instrOffsets)
                if (l.attribute == a.attribute)
                    for (uint32_t off : l.offsets) {
                        pinOffset(off,
                                  name + " names " + hex(off) + " (an indirect branch or jump-table target)");
                        if (off % 16 == 0 && off > 0 && off < k.codeSize)
                            out.fences.push_back({off / 16, name + ": jump-table target " + hex(off)});
                    }
            continue;
        }
        if (nvinfo::holdsInstructionOffsets(a.attribute) || isValueOnlyAttribute(a.attribute)) continue;
        // Anything else might name code. A single u16 value can only be an offset if it looks like one;
        // a payload we cannot decode might hold offsets anywhere, so nothing may move.
        if (a.format == nvinfo::FORMAT_BYTES) {
            out.refuseAll = name + " (" + std::to_string(a.payload.size()) + " bytes) in .nv.info." + k.name +
                            " is not known to be free of instruction offsets, so no instruction may move";
            return out;
        }
        if (a.format != nvinfo::FORMAT_NONE)
            pinOffset(a.value, name + " holds the value " + hex(a.value) +
                                   ", which could be this instruction's offset");
    }

    // Global .nv.info records that name this kernel's symbol first: only value-only ones are understood.
    for (const NvInfoAttribute& a : cubin.globalAttributes()) {
        if (a.format != nvinfo::FORMAT_BYTES || a.payload.size() < 4 || isValueOnlyAttribute(a.attribute))
            continue;
        uint32_t sym = 0;
        std::memcpy(&sym, a.payload.data(), 4);
        if (int(sym) != k.symbol) continue;
        out.refuseAll = "global .nv.info record " + nvinfo::attributeName(a.attribute) + " names " + k.name +
                        " and may hold instruction offsets the writer does not rewrite";
        return out;
    }

    // Relocations of other sections against this kernel's code with an addend point into the code
    // (jump tables, function addresses); their addends are not rewritten.
    const int debugFrame = cubin.findSection(".debug_frame");
    for (const Relocation& r : cubin.relocations()) {
        if (r.targetSection == k.textSection || r.targetSection == debugFrame) continue;
        if (!namesKernelStart(cubin, k, r.symbol) || r.addend <= 0) continue;
        const std::string where = r.targetSection >= 0 && r.targetSection < int(cubin.sections().size())
                                      ? cubin.sections()[r.targetSection].name
                                      : std::string("another section");
        const uint64_t off = uint64_t(r.addend);
        pinOffset(off, "a relocation in " + where + " holds code address " + hex(off));
        if (off % 16 == 0 && off < k.codeSize)
            out.fences.push_back({uint32_t(off / 16), "a relocation in " + where + " points at " + hex(off)});
    }

    scanDebugFrame(cubin, k, out);
    return out;
}

std::vector<UnpatchableInstruction> unpatchableInstructionsWithReasons(const Cubin& cubin, const Kernel& k,
                                                                       const PatchOptions& options)
{
    const PatchLimits limits = patchLimits(cubin, k, options);
    std::map<uint32_t, std::string> by;
    if (!limits.refuseAll.empty()) {
        for (uint32_t i = 0; i < k.codeSize / 16; ++i)
            by[i] = limits.refuseAll;
    } else {
        for (const auto& p : limits.pins)
            by.emplace(p.index, p.reason);
        for (const auto& f : limits.fences)
            by.emplace(f.index, f.reason);
    }
    std::vector<UnpatchableInstruction> out;
    for (auto& [i, why] : by)
        out.push_back({i, why});
    return out;
}

std::vector<uint32_t> unpatchableInstructions(const Cubin& cubin, const Kernel& k,
                                              const PatchOptions& options)
{
    std::vector<uint32_t> out;
    for (const auto& u : unpatchableInstructionsWithReasons(cubin, k, options))
        out.push_back(u.index);
    return out;
}

} // namespace sassx
