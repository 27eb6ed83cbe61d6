#include "core/cubin/cubin.h"

#include "core/common/read_file.h"
#include "core/cubin/elf_reader.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>

namespace sassx {

namespace {

constexpr uint32_t SHT_CUDA_INFO = 0x70000000;
constexpr uint8_t STT_FUNC = 2;
constexpr uint8_t STO_CUDA_ENTRY = 0x10;
constexpr uint64_t kSymbolSize = 24;
constexpr uint64_t kRelSize = 16;
constexpr uint64_t kRelaSize = 24;
constexpr uint64_t kMaxFileSize = uint64_t(1) << 32; // a cubin of 4 GiB is not a cubin

bool startsWith(const std::string& s, const std::string& prefix)
{
    return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

Error sectionError(const ElfSection& s, int index, const std::string& what)
{
    return makeError("section " + std::to_string(index) + " (" + (s.name.empty() ? "unnamed" : s.name) +
                     "): " + what);
}

uint32_t payloadU32(const NvInfoAttribute& a, size_t off)
{
    return elf::readLe<uint32_t>(std::span<const uint8_t>(a.payload), off);
}

// MBARRIER_INSTR_OFFSETS in the record layout: every 16 bytes an offset, 0xff, 0 and a kind word. A
// payload that is not exactly that is read as a flat list of offsets.
bool mbarrierRecords(const NvInfoAttribute& a)
{
    if (a.attribute != nvinfo::MBARRIER_INSTR_OFFSETS || a.payload.empty() || a.payload.size() % 16 != 0)
        return false;
    for (size_t o = 0; o < a.payload.size(); o += 16)
        if (payloadU32(a, o + 4) != 0xff || payloadU32(a, o + 8) != 0) return false;
    return true;
}

// Global .nv.info attributes whose SVAL payload starts with the u32 symbol index of a function.
bool isPerFunctionGlobal(uint8_t attr)
{
    switch (attr) {
    case nvinfo::REGCOUNT:
    case nvinfo::FRAME_SIZE:
    case nvinfo::MIN_STACK_SIZE:
    case nvinfo::MAX_STACK_SIZE:
    case nvinfo::CRS_STACK_SIZE:
        return true;
    default:
        return false;
    }
}

} // namespace

Result<Cubin> Cubin::load(const std::string& path)
{
    auto bytes = readRegularFile(path);
    if (!bytes) return bytes.error();
    auto cubin = parse(std::move(*bytes));
    if (!cubin) return makeError(path + ": " + cubin.message());
    return cubin;
}

std::string Cubin::archName() const
{
    if (m_sm == 0) return "unknown";
    return "sm_" + std::to_string(m_sm) + (m_archA ? "a" : "");
}

const Kernel* Cubin::findKernel(const std::string& name) const
{
    for (const auto& k : m_kernels)
        if (k.name == name) return &k;
    return nullptr;
}

int Cubin::findSection(const std::string& name) const
{
    for (size_t i = 0; i < m_sections.size(); ++i)
        if (m_sections[i].name == name) return static_cast<int>(i);
    return -1;
}

std::span<const uint8_t> Cubin::sectionData(int index) const
{
    if (index < 0 || static_cast<size_t>(index) >= m_sections.size()) return {};
    const ElfSection& s = m_sections[index];
    if (s.type == elf::SHT_NOBITS || index == 0) return {};
    // Ranges were checked in parse(); this stays a view into m_bytes.
    return std::span<const uint8_t>(m_bytes).subspan(s.offset, s.size);
}

Result<Cubin> Cubin::parse(std::vector<uint8_t> bytes)
{
    if (bytes.size() >= kMaxFileSize)
        return makeError("file too large for a cubin (" + std::to_string(bytes.size()) + " bytes)");
    Cubin c;
    c.m_bytes = std::move(bytes);
    const std::span<const uint8_t> data(c.m_bytes);

    auto table = elf::readTable(data, /*requireCuda=*/true);
    if (!table) return table.error();
    c.m_sections = std::move(table->sections);
    c.m_flags = table->header.flags;
    c.m_abiVersion = table->header.abiVersion;
    // ELF ABI v8 (CUDA 12.8+/13, EI_OSABI 0x41) moved the SM to bits 8..15 and the 'a' flag to bit 3;
    // the older layout keeps the SM in the low byte and 'a' at bit 11 (EF_CUDA_ACCELERATORS_V1).
    const bool newAbi = table->header.osAbi == 0x41 || c.m_abiVersion >= 8;
    if (newAbi) {
        c.m_sm = (c.m_flags >> 8) & 0xff;
        c.m_archA = (c.m_flags & 0x8) != 0;
    } else {
        c.m_sm = c.m_flags & 0xff;
        c.m_archA = (c.m_flags & 0x800) != 0;
    }
    // The steps, each over the sections it reads: symbols, relocations, kernels, per-kernel records,
    // the global records, the arch-specific mark.
    for (Status (Cubin::*step)() : {&Cubin::readSymbols, &Cubin::readRelocations, &Cubin::readKernels,
                                    &Cubin::readKernelSections, &Cubin::readGlobalInfo, &Cubin::readCompat})
        if (Status st = (c.*step)(); !st) return st.error();
    return c;
}

Status Cubin::readSymbols()
{
    const int sectionCount = static_cast<int>(m_sections.size());
    // Symbols.
    int symtab = -1;
    for (int i = 1; i < sectionCount; ++i)
        if (m_sections[i].type == elf::SHT_SYMTAB) {
            symtab = i;
            break;
        }
    if (symtab >= 0) {
        const ElfSection& st = m_sections[symtab];
        if (st.entsize != kSymbolSize)
            return sectionError(st, symtab,
                                "symbol entry size " + std::to_string(st.entsize) + " (expected 24)");
        if (st.size % kSymbolSize != 0)
            return sectionError(st, symtab, "size " + std::to_string(st.size) + " is not a multiple of 24");
        if (st.link == 0 || st.link >= m_sections.size() || m_sections[st.link].type == elf::SHT_NOBITS)
            return sectionError(st, symtab, "string table index " + std::to_string(st.link) + " is invalid");
        const auto strtab = sectionData(static_cast<int>(st.link));
        const auto syms = sectionData(symtab);
        const uint64_t count = st.size / kSymbolSize;
        m_symbols.reserve(count);
        for (uint64_t i = 0; i < count; ++i) {
            const uint64_t base = i * kSymbolSize;
            ElfSymbol sym;
            const uint32_t nameOff = elf::readLe<uint32_t>(syms, base);
            sym.info = syms[base + 4];
            sym.other = syms[base + 5];
            sym.shndx = elf::readLe<uint16_t>(syms, base + 6);
            sym.value = elf::readLe<uint64_t>(syms, base + 8);
            sym.size = elf::readLe<uint64_t>(syms, base + 16);
            sym.index = static_cast<uint32_t>(i);
            if (i != 0) {
                auto name = elf::readString(strtab, nameOff, ("symbol " + std::to_string(i)).c_str());
                if (!name) return name.error();
                sym.name = std::move(name.value());
            }
            m_symbols.push_back(std::move(sym));
        }
    }
    return Ok{};
}

Status Cubin::readRelocations()
{
    const int sectionCount = static_cast<int>(m_sections.size());
    // Relocations: every REL/RELA section, whatever it patches.
    for (int i = 1; i < sectionCount; ++i) {
        const ElfSection& rs = m_sections[i];
        if (rs.type != elf::SHT_REL && rs.type != elf::SHT_RELA) continue;
        const bool rela = rs.type == elf::SHT_RELA;
        const uint64_t entry = rela ? kRelaSize : kRelSize;
        if (rs.entsize != entry && !(rs.entsize == 0 && rs.size == 0))
            return sectionError(rs, i,
                                "relocation entry size " + std::to_string(rs.entsize) + " (expected " +
                                    std::to_string(entry) + ")");
        if (rs.size % entry != 0)
            return sectionError(
                rs, i, "size " + std::to_string(rs.size) + " is not a multiple of " + std::to_string(entry));
        if (rs.info == 0 || rs.info >= m_sections.size())
            return sectionError(rs, i,
                                "target section index " + std::to_string(rs.info) + " is out of range");
        const ElfSection& target = m_sections[rs.info];
        const auto rdata = sectionData(i);
        for (uint64_t off = 0; off < rs.size; off += entry) {
            Relocation r;
            r.section = i;
            r.targetSection = static_cast<int>(rs.info);
            r.offset = elf::readLe<uint64_t>(rdata, off);
            const uint64_t info = elf::readLe<uint64_t>(rdata, off + 8);
            r.type = static_cast<uint32_t>(info & 0xffffffffu);
            r.symbol = static_cast<uint32_t>(info >> 32);
            r.hasAddend = rela;
            if (rela) r.addend = elf::readLe<int64_t>(rdata, off + 16);
            r.fileOffset = rs.offset + off;
            if (r.symbol >= m_symbols.size() && !(r.symbol == 0 && m_symbols.empty()))
                return sectionError(rs, i,
                                    "relocation at " + elf::hex(r.fileOffset) + " names symbol " +
                                        std::to_string(r.symbol) + " of " + std::to_string(m_symbols.size()));
            // The patched field (at least 4 bytes) must lie inside the target section.
            if (!elf::fits(target.size, r.offset, 4))
                return sectionError(rs, i,
                                    "relocation offset " + elf::hex(r.offset) + " is outside " + target.name +
                                        " (" + std::to_string(target.size) + " bytes)");
            m_relocations.push_back(r);
        }
    }
    return Ok{};
}

Status Cubin::readKernels()
{
    const int sectionCount = static_cast<int>(m_sections.size());
    // Kernels: one per .text.NAME section. Symbols and relocations are indexed by section first so
    // vendor cubins with thousands of kernels stay linear.
    std::map<int, std::vector<uint32_t>> funcsBySection;
    for (const auto& sym : m_symbols)
        if ((sym.info & 0xf) == STT_FUNC) funcsBySection[sym.shndx].push_back(sym.index);
    std::map<int, std::vector<int>> relocsBySection;
    for (size_t r = 0; r < m_relocations.size(); ++r)
        relocsBySection[m_relocations[r].targetSection].push_back(static_cast<int>(r));
    for (int i = 1; i < sectionCount; ++i) {
        const ElfSection& s = m_sections[i];
        if (!startsWith(s.name, ".text.") || s.name.size() == 6) continue;
        Kernel k;
        k.name = s.name.substr(6);
        k.textSection = i;
        k.codeSize = s.size;
        int fallback = -1;
        for (uint32_t index : funcsBySection[i]) {
            const ElfSymbol& sym = m_symbols[index];
            if (sym.name == k.name) {
                k.symbol = static_cast<int>(sym.index);
                break;
            }
            if (fallback < 0) fallback = static_cast<int>(sym.index);
        }
        if (k.symbol < 0) k.symbol = fallback;
        if (k.symbol >= 0) k.entry = (m_symbols[k.symbol].other & STO_CUDA_ENTRY) != 0;
        k.relocations = relocsBySection[i];
        m_kernels.push_back(std::move(k));
    }
    return Ok{};
}

Status Cubin::readKernelSections()
{
    const int sectionCount = static_cast<int>(m_sections.size());
    // Per-kernel .nv.info.NAME and .nv.shared.NAME.
    std::map<std::string, int> kernelByName;
    for (size_t k = 0; k < m_kernels.size(); ++k)
        kernelByName[m_kernels[k].name] = static_cast<int>(k);
    for (int i = 1; i < sectionCount; ++i) {
        const ElfSection& s = m_sections[i];
        if (startsWith(s.name, ".nv.shared.")) {
            auto it = kernelByName.find(s.name.substr(11));
            if (it == kernelByName.end()) continue; // .nv.shared.reserved.0 and friends
            if (s.size > std::numeric_limits<uint32_t>::max())
                return sectionError(s, i, "shared memory size " + elf::hex(s.size) + " is implausible");
            m_kernels[it->second].sharedMemStatic = static_cast<uint32_t>(s.size);
            continue;
        }
        if (!startsWith(s.name, ".nv.info.") || s.type == elf::SHT_NOBITS) continue;
        auto it = kernelByName.find(s.name.substr(9));
        if (it == kernelByName.end())
            continue; // info for a function without code here: nothing to attach it to
        Kernel& k = m_kernels[it->second];
        auto records = nvinfo::parseRecords(sectionData(i), s.offset);
        if (!records) return sectionError(s, i, records.message());
        k.nvInfoSection = i;
        k.attributes = std::move(records.value());
        for (const NvInfoAttribute& a : k.attributes)
            if (Status st = readKernelAttribute(k, a, s, i); !st) return st;
        for (const InstrOffsetList& list : k.instrOffsets)
            for (uint32_t off : list.offsets)
                if (off >= k.codeSize)
                    return sectionError(s, i,
                                        nvinfo::attributeName(list.attribute) + " names offset " +
                                            elf::hex(off) + " outside .text." + k.name + " (" +
                                            std::to_string(k.codeSize) + " bytes)");
        std::sort(k.params.begin(), k.params.end(),
                  [](const KernelParam& a, const KernelParam& b) { return a.ordinal < b.ordinal; });
    }
    return Ok{};
}

Status Cubin::readKernelAttribute(Kernel& k, const NvInfoAttribute& a, const ElfSection& s, int i)
{
    const std::string where = nvinfo::attributeName(a.attribute) + " at " + elf::hex(a.fileOffset);
    const bool sval = a.format == nvinfo::FORMAT_BYTES;
    if (a.attribute == nvinfo::KPARAM_INFO) {
        if (!sval || a.payload.size() < 12)
            return sectionError(s, i, where + " is not a 12-byte parameter record");
        KernelParam p;
        p.ordinal = elf::readLe<uint16_t>(std::span<const uint8_t>(a.payload), 4);
        p.offset = elf::readLe<uint16_t>(std::span<const uint8_t>(a.payload), 6);
        // Flags: bits 0..7 log alignment, 8..11 space, 12..16 cbank, 18..31 size in bytes
        // (checked against float/double*/int/char kernels: 4/8/4/1).
        p.size = payloadU32(a, 8) >> 18;
        k.params.push_back(p);
    } else if (a.attribute == nvinfo::CBANK_PARAM_SIZE) {
        if (a.format != nvinfo::FORMAT_HALF)
            return sectionError(s, i, where + " has format " + std::to_string(a.format) + ", expected 3");
        k.paramBankSize = a.value;
    } else if (a.attribute == nvinfo::MAX_THREADS) {
        if (!sval || a.payload.size() < 12) return sectionError(s, i, where + " is not an x,y,z triple");
        uint64_t total = 1;
        for (size_t d = 0; d < 3; ++d)
            if (elf::mulOverflows(total, payloadU32(a, d * 4), &total))
                total = std::numeric_limits<uint64_t>::max();
        k.maxThreads = static_cast<uint32_t>(std::min<uint64_t>(total, std::numeric_limits<uint32_t>::max()));
    } else if (a.attribute == nvinfo::INDIRECT_BRANCH_TARGETS) {
        // Groups of: u32 branch offset, u32 (zero in every cubin seen), u32 count, count x u32
        // target offsets. Branches and targets are both code offsets that move with instructions.
        if (!sval || a.payload.size() % 4 != 0)
            return sectionError(s, i, where + " has a payload that is not a list of u32");
        InstrOffsetList list;
        list.attribute = a.attribute;
        const std::span<const uint8_t> pl(a.payload);
        const uint64_t payloadFile = a.fileOffset + 4;
        uint64_t pos = 0;
        while (pos < pl.size()) {
            if (!elf::fits(pl.size(), pos, 12))
                return sectionError(s, i, where + " ends inside a branch record");
            const uint32_t count = elf::readLe<uint32_t>(pl, pos + 8);
            uint64_t need = 0;
            if (elf::mulOverflows(count, 4, &need) || !elf::fits(pl.size(), pos + 12, need))
                return sectionError(
                    s, i, where + " lists " + std::to_string(count) + " targets past the end of its payload");
            list.offsets.push_back(elf::readLe<uint32_t>(pl, pos));
            list.fileOffsets.push_back(payloadFile + pos);
            for (uint32_t t = 0; t < count; ++t) {
                const uint64_t at = pos + 12 + uint64_t(t) * 4;
                list.offsets.push_back(elf::readLe<uint32_t>(pl, at));
                list.fileOffsets.push_back(payloadFile + at);
            }
            pos += 12 + need;
        }
        k.instrOffsets.push_back(std::move(list));
    } else if (nvinfo::holdsInstructionOffsets(a.attribute)) {
        if (!sval || a.payload.size() % 4 != 0)
            return sectionError(s, i, where + " has a payload that is not a list of u32 offsets");
        InstrOffsetList list;
        list.attribute = a.attribute;
        // CUDA 13's ptxas writes MBARRIER_INSTR_OFFSETS as 16-byte records {offset, 0xff, 0, kind}
        // (sm_90 and sm_100/120 alike); only the first word is a code offset.
        const size_t stride = mbarrierRecords(a) ? 16 : 4;
        for (size_t o = 0; o < a.payload.size(); o += stride) {
            list.offsets.push_back(payloadU32(a, o));
            list.fileOffsets.push_back(a.fileOffset + 4 + o);
        }
        k.instrOffsets.push_back(std::move(list));
    } else if (!nvinfo::isKnownAttribute(a.attribute)) {
        if (std::find(k.unknownAttributes.begin(), k.unknownAttributes.end(), a.attribute) ==
            k.unknownAttributes.end())
            k.unknownAttributes.push_back(a.attribute);
    }
    return Ok{};
}

Status Cubin::readGlobalInfo()
{
    const int sectionCount = static_cast<int>(m_sections.size());
    // Global .nv.info: per-function records carry the function's symbol index first.
    std::map<int, size_t> kernelBySymbol;
    for (size_t k = 0; k < m_kernels.size(); ++k)
        if (m_kernels[k].symbol >= 0) kernelBySymbol.emplace(m_kernels[k].symbol, k);
    for (int i = 1; i < sectionCount; ++i) {
        const ElfSection& s = m_sections[i];
        if (s.name != ".nv.info" || s.type == elf::SHT_NOBITS) continue;
        auto records = nvinfo::parseRecords(sectionData(i), s.offset);
        if (!records) return sectionError(s, i, records.message());
        for (const NvInfoAttribute& a : records.value()) {
            if (!isPerFunctionGlobal(a.attribute) || a.format != nvinfo::FORMAT_BYTES) continue;
            const std::string where = nvinfo::attributeName(a.attribute) + " at " + elf::hex(a.fileOffset);
            if (a.payload.size() < 8) return sectionError(s, i, where + " is shorter than symbol + value");
            const uint32_t symbol = payloadU32(a, 0);
            const uint32_t value = payloadU32(a, 4);
            if (symbol >= m_symbols.size())
                return sectionError(s, i,
                                    where + " names symbol " + std::to_string(symbol) + " of " +
                                        std::to_string(m_symbols.size()));
            auto owner = kernelBySymbol.find(static_cast<int>(symbol));
            if (owner != kernelBySymbol.end()) { // else a function without code here (extern)
                Kernel& k = m_kernels[owner->second];
                k.globalAttributes.push_back(a);
                if (a.attribute == nvinfo::REGCOUNT)
                    k.regCount = value;
                else if (a.attribute == nvinfo::FRAME_SIZE)
                    k.frameSize = value;
                else if (a.attribute == nvinfo::MIN_STACK_SIZE)
                    k.minStackSize = value;
                else if (a.attribute == nvinfo::MAX_STACK_SIZE)
                    k.maxStackSize = value;
            }
        }
        m_globalAttributes.insert(m_globalAttributes.end(), records->begin(), records->end());
    }
    return Ok{};
}

Status Cubin::readCompat()
{
    // CUDA 13 marks sm_XXa in .nv.compat rather than in e_flags.
    const int compat = findSection(".nv.compat");
    if (compat > 0 && m_sections[compat].type != elf::SHT_NOBITS) {
        auto records = nvinfo::parseRecords(sectionData(compat), m_sections[compat].offset);
        if (!records) return sectionError(m_sections[compat], compat, records.message());
        for (const NvInfoAttribute& a : records.value())
            if (a.attribute == nvinfo::COMPAT_ARCH_SPECIFIC && a.format == nvinfo::FORMAT_BYTE &&
                a.value == 1)
                m_archA = true;
    }
    return Ok{};
}

} // namespace sassx
