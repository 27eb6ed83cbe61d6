#pragma once
// Internal to sassx_cubin: bounds-checked little-endian reads and a minimal ELF64 section-table
// reader shared by Cubin::parse (device ELF) and extractCubins (host ELF). Every read states the
// range it needs first, so hostile sizes fail as Errors before any byte is touched.
#include "core/cubin/cubin.h"

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace sassx::elf {

// off + len <= size, without overflowing.
inline bool fits(uint64_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

// Checked a*b and a+b: hostile counts and offsets must not wrap into small, "valid" numbers.
inline bool mulOverflows(uint64_t a, uint64_t b, uint64_t* out)
{
    return __builtin_mul_overflow(a, b, out);
}
inline bool addOverflows(uint64_t a, uint64_t b, uint64_t* out)
{
    return __builtin_add_overflow(a, b, out);
}

template <class T> T readLe(std::span<const uint8_t> data, uint64_t off)
{
    // Callers check fits() first; this is the one place that copies bytes out.
    T value{};
    std::memcpy(&value, data.data() + off, sizeof(T));
    return value; // host is little-endian (x86-64, aarch64), as is every cubin
}

template <class T> bool tryRead(std::span<const uint8_t> data, uint64_t off, T* out)
{
    if (!fits(data.size(), off, sizeof(T))) return false;
    *out = readLe<T>(data, off);
    return true;
}

std::string hex(uint64_t value);

constexpr uint16_t EM_CUDA = 190;
constexpr uint32_t SHT_NOBITS = 8;
constexpr uint32_t SHT_SYMTAB = 2;
constexpr uint32_t SHT_STRTAB = 3;
constexpr uint32_t SHT_RELA = 4;
constexpr uint32_t SHT_REL = 9;

struct Header
{
    uint8_t osAbi = 0;
    uint8_t abiVersion = 0;
    uint16_t type = 0;
    uint16_t machine = 0;
    uint32_t flags = 0;
};

struct Table
{
    Header header;
    std::vector<ElfSection> sections;
};

// Reads the ELF64 LE header and the section table with names. `what` prefixes messages
// ("cubin", "host ELF"). When requireCuda, e_machine must be EM_CUDA.
Result<Table> readTable(std::span<const uint8_t> data, bool requireCuda);

// A NUL-terminated string at `off` inside the string table `strtab` (a section's bytes).
Result<std::string> readString(std::span<const uint8_t> strtab, uint64_t off, const char* what);

} // namespace sassx::elf
