#include "core/cubin/elf_reader.h"

#include <cstdio>

namespace sassx::elf {

namespace {
constexpr uint64_t kHeaderSize = 64;
constexpr uint64_t kSectionHeaderSize = 64;
constexpr uint16_t SHN_XINDEX = 0xffff;
constexpr uint16_t SHN_LORESERVE = 0xff00;
} // namespace

std::string hex(uint64_t value)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
    return buf;
}

Result<std::string> readString(std::span<const uint8_t> strtab, uint64_t off, const char* what)
{
    if (off >= strtab.size())
        return makeError(std::string(what) + " name offset " + hex(off) + " is outside its string table (" +
                         std::to_string(strtab.size()) + " bytes)");
    const auto* begin = strtab.data() + off;
    const auto* end = static_cast<const uint8_t*>(std::memchr(begin, 0, strtab.size() - off));
    if (!end)
        return makeError(std::string(what) + " name at " + hex(off) +
                         " is not NUL-terminated inside its string table");
    return std::string(reinterpret_cast<const char*>(begin), static_cast<size_t>(end - begin));
}

Result<Table> readTable(std::span<const uint8_t> data, bool requireCuda)
{
    const uint64_t size = data.size();
    if (size < 4 || data[0] != 0x7f || data[1] != 'E' || data[2] != 'L' || data[3] != 'F')
        return makeError("not an ELF file (bad magic)");
    if (size < kHeaderSize)
        return makeError("truncated ELF header: " + std::to_string(size) + " bytes, need 64");
    if (data[4] != 2) return makeError("not a 64-bit ELF (EI_CLASS " + std::to_string(data[4]) + ")");
    if (data[5] != 1) return makeError("not a little-endian ELF (EI_DATA " + std::to_string(data[5]) + ")");

    Table table;
    table.header.osAbi = data[7];
    table.header.abiVersion = data[8];
    table.header.type = readLe<uint16_t>(data, 16);
    table.header.machine = readLe<uint16_t>(data, 18);
    table.header.flags = readLe<uint32_t>(data, 48);
    if (requireCuda && table.header.machine != EM_CUDA)
        return makeError("not a CUDA cubin (e_machine " + std::to_string(table.header.machine) +
                         ", expected 190 EM_CUDA)");

    const uint64_t shoff = readLe<uint64_t>(data, 40);
    const uint16_t shentsize = readLe<uint16_t>(data, 58);
    uint64_t shnum = readLe<uint16_t>(data, 60);
    uint64_t shstrndx = readLe<uint16_t>(data, 62);
    if (shoff == 0) {
        if (shnum != 0)
            return makeError("ELF header lists " + std::to_string(shnum) + " sections but no section table");
        return table; // no sections at all: legal ELF, simply empty
    }
    if (shentsize != kSectionHeaderSize)
        return makeError("unexpected section header size " + std::to_string(shentsize) + " (expected 64)");
    if (!fits(size, shoff, kSectionHeaderSize))
        return makeError("section header table at " + hex(shoff) + " is outside the file (" +
                         std::to_string(size) + " bytes)");
    // Extended numbering: counts that do not fit 16 bits live in section 0.
    if (shnum == 0) shnum = readLe<uint64_t>(data, shoff + 32);
    if (shstrndx == SHN_XINDEX)
        shstrndx = readLe<uint32_t>(data, shoff + 40);
    else if (shstrndx >= SHN_LORESERVE)
        return makeError("invalid section name table index " + std::to_string(shstrndx));
    uint64_t tableBytes = 0;
    if (mulOverflows(shnum, kSectionHeaderSize, &tableBytes) || !fits(size, shoff, tableBytes))
        return makeError("section header table (" + std::to_string(shnum) + " entries at " + hex(shoff) +
                         ") extends past the end of the file");

    table.sections.resize(shnum);
    for (uint64_t i = 0; i < shnum; ++i) {
        const uint64_t base = shoff + i * kSectionHeaderSize;
        ElfSection& s = table.sections[i];
        s.type = readLe<uint32_t>(data, base + 4);
        s.flags = readLe<uint64_t>(data, base + 8);
        s.addr = readLe<uint64_t>(data, base + 16);
        s.offset = readLe<uint64_t>(data, base + 24);
        s.size = readLe<uint64_t>(data, base + 32);
        s.link = readLe<uint32_t>(data, base + 40);
        s.info = readLe<uint32_t>(data, base + 44);
        s.addralign = readLe<uint64_t>(data, base + 48);
        s.entsize = readLe<uint64_t>(data, base + 56);
        if (i != 0 && s.type != SHT_NOBITS && !fits(size, s.offset, s.size))
            return makeError("section " + std::to_string(i) + " (offset " + hex(s.offset) + ", size " +
                             hex(s.size) + ") extends past the end of the file (" + std::to_string(size) +
                             " bytes)");
    }
    if (shnum == 0) return table;
    if (shstrndx == 0) return makeError("ELF has no section name table (e_shstrndx 0)");
    if (shstrndx >= shnum)
        return makeError("section name table index " + std::to_string(shstrndx) + " is out of range (" +
                         std::to_string(shnum) + " sections)");
    const ElfSection& names = table.sections[shstrndx];
    if (names.type == SHT_NOBITS) return makeError("section name table has no data");
    const auto strtab = data.subspan(names.offset, names.size);
    for (uint64_t i = 1; i < shnum; ++i) {
        const uint32_t nameOff = readLe<uint32_t>(data, shoff + i * kSectionHeaderSize);
        auto name = readString(strtab, nameOff, ("section " + std::to_string(i)).c_str());
        if (!name) return name.error();
        table.sections[i].name = std::move(name.value());
    }
    return table;
}

} // namespace sassx::elf
