// Fatbin layout (checked against nvcc/fatbinary 13.0 output and public notes on the format):
//   container: u32 magic 0xBA55ED50, u16 version (1), u16 header size (16), u64 size of what follows.
//   entry:     u16 kind (1 PTX, 2 ELF), u16 (0x0101), u32 entry header size (64, 80, 96, 112),
//              u64 payload size (8-aligned), u32 compressed size, u32, u16 minor, u16 major, u32 sm,
//              u32 name offset, u32 name size, u64 flags, u64, u64 uncompressed size; payload follows
//              the entry header. Flags: 0x2000 LZ4 block (--compress-mode=speed), 0x8000 zstd frame.
// Host ELFs keep containers back to back in .nv_fatbin (executables, -rdc=false objects) or
// __nv_relfatbin (-rdc=true objects).
#include "core/cubin/fatbin.h"
#include "core/cubin/cubin.h"
#include "core/cubin/elf_reader.h"

#ifdef SASSX_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef SASSX_HAVE_ZSTD
#include <zstd.h>
#endif

#include <limits>

namespace sassx {

namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint64_t kContainerHeader = 16;
constexpr uint64_t kEntryHeaderMin = 64;
constexpr uint16_t kKindPtx = 1;
constexpr uint16_t kKindElf = 2;
constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
// A decompressed cubin above this is a hostile header, not a kernel: refuse before allocating
// (the largest cubins in vendor libraries are tens of MiB).
constexpr uint64_t kMaxDecompressed = uint64_t(256) << 20;
// LZ4 cannot expand more than ~255x; a larger claim is a lie we need not allocate for.
constexpr uint64_t kLz4MaxRatio = 255;

Result<std::vector<uint8_t>> decompress(std::span<const uint8_t> src, uint64_t flags, uint64_t rawSize,
                                        const std::string& where, std::string* method)
{
    if ((flags & kFlagLz4) && (flags & kFlagZstd))
        return makeError(where + ": entry claims both LZ4 and zstd compression");
    if (!(flags & (kFlagLz4 | kFlagZstd))) {
        *method = "none";
        return std::vector<uint8_t>(src.begin(), src.end());
    }
    if (rawSize == 0 || rawSize > kMaxDecompressed)
        return makeError(where + ": implausible uncompressed size " + std::to_string(rawSize));
    if (flags & kFlagLz4) {
        *method = "lz4";
#ifdef SASSX_HAVE_LZ4
        if (src.size() > static_cast<uint64_t>(std::numeric_limits<int>::max()))
            return makeError(where + ": LZ4 payload too large");
        if (rawSize > src.size() * kLz4MaxRatio + 64)
            return makeError(where + ": LZ4 entry claims " + std::to_string(rawSize) + " bytes from " +
                             std::to_string(src.size()) + ", more than LZ4 can expand");
        std::vector<uint8_t> out(rawSize);
        const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src.data()),
                                          reinterpret_cast<char*>(out.data()), static_cast<int>(src.size()),
                                          static_cast<int>(rawSize));
        if (n < 0 || static_cast<uint64_t>(n) != rawSize)
            return makeError(where + ": LZ4 data is corrupt (decoded " + std::to_string(n) + " of " +
                             std::to_string(rawSize) + " bytes)");
        return out;
#else
        return makeError(where + ": LZ4-compressed fatbin entry, but sassx was built without liblz4 "
                                 "(install liblz4-dev and rebuild)");
#endif
    }
    *method = "zstd";
#ifdef SASSX_HAVE_ZSTD
    const unsigned long long frameSize = ZSTD_getFrameContentSize(src.data(), src.size());
    if (frameSize == ZSTD_CONTENTSIZE_ERROR) return makeError(where + ": not a zstd frame");
    if (frameSize != ZSTD_CONTENTSIZE_UNKNOWN && frameSize != rawSize)
        return makeError(where + ": zstd frame holds " + std::to_string(frameSize) +
                         " bytes, entry header says " + std::to_string(rawSize));
    std::vector<uint8_t> out(rawSize);
    const size_t n = ZSTD_decompress(out.data(), out.size(), src.data(), src.size());
    if (ZSTD_isError(n)) return makeError(where + ": zstd data is corrupt (" + ZSTD_getErrorName(n) + ")");
    if (n != rawSize)
        return makeError(where + ": zstd data decoded to " + std::to_string(n) + " bytes, header says " +
                         std::to_string(rawSize));
    return out;
#else
    return makeError(where + ": zstd-compressed fatbin entry, but sassx was built without libzstd "
                             "(install libzstd-dev and rebuild)");
#endif
}

// Walks the containers in data[begin, end). Every container must be well formed; zero padding
// between containers (section alignment) is skipped.
Status scanContainers(std::span<const uint8_t> data, uint64_t begin, uint64_t end, const std::string& origin,
                      std::vector<EmbeddedCubin>* out, int* ptxEntries)
{
    uint64_t pos = begin;
    int entryIndex = 0;
    while (pos < end) {
        if (data[pos] == 0) { // padding
            ++pos;
            continue;
        }
        if (!elf::fits(end, pos, kContainerHeader))
            return makeError(origin + ": truncated fatbin header at " + elf::hex(pos));
        const uint32_t magic = elf::readLe<uint32_t>(data, pos);
        if (magic != kFatbinMagic)
            return makeError(origin + ": bad fatbin magic " + elf::hex(magic) + " at " + elf::hex(pos));
        const uint16_t headerSize = elf::readLe<uint16_t>(data, pos + 6);
        const uint64_t bodySize = elf::readLe<uint64_t>(data, pos + 8);
        if (headerSize < kContainerHeader)
            return makeError(origin + ": fatbin header size " + std::to_string(headerSize) + " at " +
                             elf::hex(pos) + " is too small");
        uint64_t bodyStart = 0;
        uint64_t bodyEnd = 0;
        if (elf::addOverflows(pos, headerSize, &bodyStart) ||
            elf::addOverflows(bodyStart, bodySize, &bodyEnd) || bodyEnd > end)
            return makeError(origin + ": fatbin at " + elf::hex(pos) + " claims " + std::to_string(bodySize) +
                             " bytes, past the end of its data");
        uint64_t e = bodyStart;
        while (e < bodyEnd) {
            const std::string where = origin + " entry " + std::to_string(entryIndex) + " at " + elf::hex(e);
            if (!elf::fits(bodyEnd, e, kEntryHeaderMin))
                return makeError(where + ": truncated fatbin entry header");
            const uint16_t kind = elf::readLe<uint16_t>(data, e);
            const uint32_t entryHeader = elf::readLe<uint32_t>(data, e + 4);
            const uint64_t payloadSize = elf::readLe<uint64_t>(data, e + 8);
            const uint32_t compressedSize = elf::readLe<uint32_t>(data, e + 16);
            const uint32_t sm = elf::readLe<uint32_t>(data, e + 28);
            const uint64_t flags = elf::readLe<uint64_t>(data, e + 40);
            const uint64_t rawSize = elf::readLe<uint64_t>(data, e + 56);
            uint64_t payload = 0;
            uint64_t next = 0;
            if (entryHeader < kEntryHeaderMin)
                return makeError(where + ": entry header size " + std::to_string(entryHeader) +
                                 " is too small");
            if (elf::addOverflows(e, entryHeader, &payload) ||
                elf::addOverflows(payload, payloadSize, &next) || next > bodyEnd)
                return makeError(where + ": payload of " + std::to_string(payloadSize) +
                                 " bytes runs past the end of the fatbin");
            ++entryIndex;
            if (kind == kKindElf) {
                const bool compressed = (flags & (kFlagLz4 | kFlagZstd)) != 0;
                // Compressed entries store the exact stream length; the payload size is padded to 8.
                const uint64_t stored = compressed ? compressedSize : payloadSize;
                if (stored > payloadSize)
                    return makeError(where + ": compressed size " + std::to_string(stored) +
                                     " exceeds the payload size " + std::to_string(payloadSize));
                EmbeddedCubin cubin;
                auto bytes =
                    decompress(data.subspan(payload, stored), flags, rawSize, where, &cubin.compression);
                if (!bytes) return bytes.error();
                cubin.bytes = std::move(bytes.value());
                if (!looksLikeCubin(cubin.bytes))
                    return makeError(where + ": ELF entry does not hold a CUDA ELF");
                cubin.smVersion = static_cast<int>(sm);
                cubin.origin = "fatbin entry " + std::to_string(entryIndex - 1) + " in " + origin;
                out->push_back(std::move(cubin));
            } else if (kind == kKindPtx) {
                ++*ptxEntries;
            }
            e = next;
        }
        pos = bodyEnd;
    }
    return Ok{};
}

Result<std::vector<EmbeddedCubin>> finish(std::vector<EmbeddedCubin> cubins, int ptxEntries,
                                          const std::string& what)
{
    if (cubins.empty())
        return makeError(what + " holds no SASS (ELF) entries" +
                         (ptxEntries ? " (only " + std::to_string(ptxEntries) + " PTX)" : std::string()));
    return cubins;
}

} // namespace

bool haveLz4Support()
{
#ifdef SASSX_HAVE_LZ4
    return true;
#else
    return false;
#endif
}

bool haveZstdSupport()
{
#ifdef SASSX_HAVE_ZSTD
    return true;
#else
    return false;
#endif
}

bool looksLikeCubin(const std::vector<uint8_t>& bytes)
{
    if (bytes.size() < 20 || bytes[0] != 0x7f || bytes[1] != 'E' || bytes[2] != 'L' || bytes[3] != 'F')
        return false;
    return elf::readLe<uint16_t>(std::span<const uint8_t>(bytes), 18) == elf::EM_CUDA;
}

Result<std::vector<EmbeddedCubin>> extractCubins(const std::vector<uint8_t>& bytes)
{
    const std::span<const uint8_t> data(bytes);
    if (looksLikeCubin(bytes)) {
        auto cubin = Cubin::parse(bytes);
        if (!cubin) return cubin.error();
        EmbeddedCubin e;
        e.smVersion = cubin->smVersion();
        e.origin = "cubin";
        e.bytes = bytes;
        e.compression = "none";
        return std::vector<EmbeddedCubin>{std::move(e)};
    }
    std::vector<EmbeddedCubin> out;
    int ptx = 0;
    uint32_t magic = 0;
    if (elf::tryRead(data, 0, &magic) && magic == kFatbinMagic) {
        auto st = scanContainers(data, 0, data.size(), "fatbin", &out, &ptx);
        if (!st) return st.error();
        return finish(std::move(out), ptx, "fatbin");
    }
    if (bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
        auto table = elf::readTable(data, /*requireCuda=*/false);
        if (!table) return makeError("host ELF: " + table.message());
        bool found = false;
        for (const ElfSection& s : table->sections) {
            if (s.name != ".nv_fatbin" && s.name != "__nv_relfatbin") continue;
            found = true;
            if (s.type == elf::SHT_NOBITS) continue;
            auto st = scanContainers(data, s.offset, s.offset + s.size, s.name, &out, &ptx);
            if (!st) return st.error();
        }
        if (!found)
            return makeError("ELF file has no .nv_fatbin or __nv_relfatbin section (no embedded GPU code)");
        return finish(std::move(out), ptx, "host ELF");
    }
    return makeError("not a cubin, fatbin or ELF host binary (unrecognised magic)");
}

} // namespace sassx
