#include "core/rewrite/cubin_writer.h"

#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/line_table.h"
#include "core/rewrite/patch_limits.h"

#include <cstdio>
#include <cstring>

namespace sassx {

namespace {

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
    return buf;
}

template <class T> void writeLe(std::vector<uint8_t>& bytes, uint64_t off, T value)
{
    std::memcpy(bytes.data() + off, &value, sizeof(T)); // host and cubin are little-endian
}

template <class T> T readLe(const std::vector<uint8_t>& bytes, uint64_t off)
{
    T v{};
    std::memcpy(&v, bytes.data() + off, sizeof(T));
    return v;
}

std::string at(const KernelAnalysis& a, InstrId i)
{
    const auto& ins = a.listing.instructions[i.value()];
    return ins.opcode + " at " + hex(ins.offset);
}

// The .text offsets the cubin names: an offset in the original code is an instruction, an offset in the
// written code is a position.
InstrId instructionAtOffset(uint64_t offset)
{
    return InstrId(uint32_t(offset / 16));
}

uint64_t offsetOf(InstrId i)
{
    return uint64_t(i.value()) * 16;
}

uint64_t offsetOf(Position p)
{
    return uint64_t(p.value()) * 16;
}

// Whether original index `index` still holds the instruction ptxas put there.
bool inPlace(const Schedule& s, uint32_t index)
{
    return s.order[Position(index)] == InstrId(index);
}

// Structure: a permutation that keeps every instruction inside its own basic block.
Status checkStructure(const KernelAnalysis& a, const Kernel& k, const Schedule& s)
{
    const size_t n = a.listing.instructions.size();
    if (k.codeSize % 16 || k.codeSize / 16 != n)
        return makeError("the listing of " + k.name + " has " + std::to_string(n) +
                         " instructions but .text." + k.name + " holds " + std::to_string(k.codeSize) +
                         " bytes");
    if (s.order.size() != n || s.control.size() != n)
        return makeError("the schedule covers " + std::to_string(s.order.size()) +
                         " positions, the kernel has " + std::to_string(n) + " instructions");
    IndexVector<InstrId, char> seen(n, 0);
    for (Position p : s.positions()) {
        const InstrId i = s.order[p];
        if (i.value() >= n || seen[i])
            return makeError("the schedule's order is not a permutation (position " + to_string(p) + ")");
        seen[i] = true;
        // The block at a position is the block ptxas' instruction there belongs to.
        if (a.cfg.blockOf.size() == n && a.cfg.blockOf[i.value()] != a.cfg.blockOf[p.value()])
            return makeError(at(a, i) + " would leave its basic block (to " + hex(offsetOf(p)) +
                             "); block starts must stay fixed so branch offsets stay valid");
    }
    return Ok{};
}

// The limits of patch_limits.h, checked against this order.
Status checkLimits(const KernelAnalysis& a, const Kernel& k, const Cubin& cubin, const Schedule& s,
                   const PatchOptions& options)
{
    if (!s.reorders()) return Ok{};
    const PatchLimits limits = patchLimits(cubin, k, options);
    if (!limits.refuseAll.empty()) return makeError("cannot reorder " + k.name + ": " + limits.refuseAll);
    for (const auto& pin : limits.pins)
        if (!inPlace(s, pin.index))
            return makeError("cannot move " + at(a, InstrId(pin.index)) + ": " + pin.reason);
    // A fence at original index f: what stood before it stays before it.
    for (const auto& f : limits.fences)
        for (Position p : s.positions())
            if ((p.value() < f.index) != (s.order[p].value() < f.index))
                return makeError(at(a, s.order[p]) + " would cross " + hex(uint64_t(f.index) * 16) + ": " +
                                 f.reason);
    return Ok{};
}

// ELF64 layout (the only one Cubin::parse accepts): e_shoff at 0x28; in a 64-byte section header,
// sh_offset at 0x18 and sh_size at 0x20.
constexpr uint64_t kShoffField = 0x28, kSectionHeaderSize = 64, kShOffset = 0x18, kShSize = 0x20;

uint64_t sectionHeaderAt(const std::vector<uint8_t>& bytes, int section)
{
    return readLe<uint64_t>(bytes, kShoffField) + uint64_t(section) * kSectionHeaderSize;
}

// Line tables follow their instructions (core/rewrite/line_table.h). A rewritten section of the old
// size (a shorter program is padded to it) replaces the old bytes in place. A longer one cannot stay
// there without shifting every later section, so its bytes go to the end of the file and its section
// header's sh_offset and sh_size follow: a line section is not allocated (no SHF_ALLOC, no segment maps
// it), so nothing that is loaded moves, and ELF lets a section's bytes lie anywhere in the file
// (nvdisasm, cuobjdump and readelf read such files). The old bytes stay behind, unreferenced.
// Relocations behind a grown sequence (other kernels') get their new r_offset.
Status rewriteLineTables(const Cubin& cubin, const Kernel& k, const IndexVector<Position, InstrId>& order,
                         std::vector<uint8_t>& out)
{
    for (const char* name : kLineTableSections) {
        const int sec = cubin.findSection(name);
        if (sec < 0) continue;
        auto edit = rewriteLineTable(cubin, sec, k, order);
        if (!edit) return edit.error();
        const ElfSection& h = cubin.sections()[sec];
        constexpr uint64_t SHF_ALLOC = 0x2;
        if (edit->bytes.size() == h.size) {
            std::copy(edit->bytes.begin(), edit->bytes.end(), out.begin() + int64_t(h.offset));
        } else if (h.flags & SHF_ALLOC) {
            return makeError(std::string(name) +
                             " is allocated, so its longer rewrite cannot move to the end of the file");
        } else {
            uint64_t at = out.size();
            if (h.addralign > 1) at = (at + h.addralign - 1) / h.addralign * h.addralign;
            out.resize(at, 0);
            out.insert(out.end(), edit->bytes.begin(), edit->bytes.end());
            writeLe<uint64_t>(out, sectionHeaderAt(out, sec) + kShOffset, at);
            writeLe<uint64_t>(out, sectionHeaderAt(out, sec) + kShSize, edit->bytes.size());
        }
        for (const auto& [r, offset] : edit->relocationOffsets)
            writeLe<uint64_t>(out, cubin.relocations()[r].fileOffset, offset);
    }
    return Ok{};
}

} // namespace

uint64_t withControl(uint64_t hi, const Control& c)
{
    constexpr uint64_t kControlBits = 0x1FFFFFull << 41;
    return c.encode(hi & ~kControlBits);
}

std::vector<PatchedRange> patchedRanges(const Cubin& cubin, const Kernel& k)
{
    std::vector<PatchedRange> out;
    out.push_back({cubin.sections()[k.textSection].offset, k.codeSize});
    for (const InstrOffsetList& l : k.instrOffsets)
        for (uint64_t f : l.fileOffsets)
            out.push_back({f, 4});
    for (int r : k.relocations)
        out.push_back({cubin.relocations()[r].fileOffset, 8});
    // Line tables: the section (one sequence changes, the unit length, the sequences behind it shift),
    // its sh_offset and sh_size (when it grows and moves to the end of the file, which may then grow)
    // and the r_offset of every relocation into it.
    for (const char* name : kLineTableSections) {
        const int sec = cubin.findSection(name);
        if (sec < 0) continue;
        out.push_back({cubin.sections()[sec].offset, cubin.sections()[sec].size});
        out.push_back({sectionHeaderAt(cubin.bytes(), sec) + kShOffset, 16});
        for (const Relocation& r : cubin.relocations())
            if (r.targetSection == sec) out.push_back({r.fileOffset, 8});
    }
    return out;
}

Result<std::vector<uint8_t>> writeSchedule(const Cubin& cubin, const KernelAnalysis& a, const Schedule& s,
                                           const PatchOptions& options)
{
    const Kernel* k = cubin.findKernel(a.listing.kernel);
    if (!k) return makeError("the cubin has no kernel " + a.listing.kernel);
    if (auto st = checkStructure(a, *k, s); !st) return st.error();
    if (auto st = checkLimits(a, *k, cubin, s, options); !st) return st.error();

    std::vector<uint8_t> out = cubin.bytes();
    const std::vector<uint8_t>& in = cubin.bytes();
    const uint64_t text = cubin.sections()[k->textSection].offset;
    const uint32_t n = s.size();
    for (Position p : s.positions()) {
        const InstrId i = s.order[p];
        // Words come from the file, not the listing: the file is the truth, the listing a view of it.
        const uint64_t lo = readLe<uint64_t>(in, text + offsetOf(i));
        const uint64_t hi = readLe<uint64_t>(in, text + offsetOf(i) + 8);
        writeLe<uint64_t>(out, text + offsetOf(p), lo);
        writeLe<uint64_t>(out, text + offsetOf(p) + 8, withControl(hi, s.control[i]));
    }

    const IndexVector<InstrId, Position> pos = s.positionOf();
    for (const InstrOffsetList& l : k->instrOffsets) {
        if (l.attribute == nvinfo::INDIRECT_BRANCH_TARGETS) continue; // pinned by checkLimits
        for (size_t e = 0; e < l.offsets.size(); ++e) {
            const uint32_t off = l.offsets[e];
            if (off % 16) {
                if (!inPlace(s, off / 16) || (off / 16 + 1 < n && !inPlace(s, off / 16 + 1)))
                    return makeError(nvinfo::attributeName(l.attribute) + " names " + hex(off) +
                                     ", inside an instruction; refusing to move it");
                continue;
            }
            writeLe<uint32_t>(out, l.fileOffsets[e], uint32_t(offsetOf(pos[instructionAtOffset(off)])));
        }
    }
    for (int ri : k->relocations) {
        const Relocation& r = cubin.relocations()[ri];
        if (r.offset >= k->codeSize)
            return makeError("a relocation patches " + hex(r.offset) + ", past the code");
        const uint64_t moved = offsetOf(pos[instructionAtOffset(r.offset)]) + r.offset % 16;
        writeLe<uint64_t>(out, r.fileOffset, moved);
    }
    if (s.reorders() && !options.keepStaleLineInfo)
        if (auto st = rewriteLineTables(cubin, *k, s.order, out); !st)
            return makeError("cannot reorder " + k->name + ": " + st.message());
    return out;
}

} // namespace sassx
