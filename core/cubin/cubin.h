#pragma once
// The ELF layer: sections, symbols, kernels, .nv.info attributes and relocations of one cubin.
// Knows nothing about instructions beyond "16 bytes each". Every accessor is bounds-checked at
// parse time, so a Cubin that parsed is safe to walk.
#include "core/common/result.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sassx {

struct ElfSection
{
    std::string name;
    uint32_t type = 0;
    uint64_t flags = 0;
    uint64_t addr = 0;
    uint64_t offset = 0; // file offset
    uint64_t size = 0;
    uint32_t link = 0;
    uint32_t info = 0;
    uint64_t addralign = 0;
    uint64_t entsize = 0;
};

struct ElfSymbol
{
    std::string name;
    uint64_t value = 0;
    uint64_t size = 0;
    uint8_t info = 0;
    uint8_t other = 0;
    uint16_t shndx = 0;
    uint32_t index = 0; // index in .symtab (what nvdisasm -fun takes)
};

struct Relocation
{
    int section = -1;       // index of the .rel/.rela section holding it
    int targetSection = -1; // section it patches (sh_info)
    uint64_t offset = 0;    // r_offset: byte offset inside targetSection
    uint32_t type = 0;
    uint32_t symbol = 0;
    int64_t addend = 0;
    bool hasAddend = false;
    uint64_t fileOffset = 0; // where r_offset itself lives in the file (the rewriter patches it)
};

// One .nv.info record: u8 format, u8 attribute, then u16 value (formats 1-3) or u16 length + payload.
struct NvInfoAttribute
{
    uint8_t format = 0;
    uint8_t attribute = 0;
    uint16_t value = 0;           // formats 1..3; payload length for format 4
    std::vector<uint8_t> payload; // format 4 only
    uint64_t fileOffset = 0;      // of the record's first byte
};

// Known attribute ids (docs/sass-facts.md §6).
namespace nvinfo {
constexpr uint8_t PARAM_CBANK = 0x0a;
constexpr uint8_t CBANK_PARAM_SIZE = 0x19;
constexpr uint8_t KPARAM_INFO = 0x17;
constexpr uint8_t MAXREG_COUNT = 0x1b;
constexpr uint8_t EXIT_INSTR_OFFSETS = 0x1c;
constexpr uint8_t S2RCTAID_INSTR_OFFSETS = 0x1d;
constexpr uint8_t LD_CACHEMOD_INSTR_OFFSETS = 0x25;
constexpr uint8_t ATOM_SYS_INSTR_OFFSETS = 0x27;
constexpr uint8_t COOP_GROUP_INSTR_OFFSETS = 0x28;
constexpr uint8_t REGCOUNT = 0x2f;
constexpr uint8_t INT_WARP_WIDE_INSTR_OFFSETS = 0x31;
constexpr uint8_t INDIRECT_BRANCH_TARGETS = 0x34;
constexpr uint8_t MAX_THREADS = 0x05;
constexpr uint8_t MBARRIER_INSTR_OFFSETS = 0x39;
constexpr uint8_t COROUTINE_RESUME_ID_OFFSETS = 0x3a;
constexpr uint8_t SW_WAR_MEMBAR_SYS_INSTR_OFFSETS = 0x47;
constexpr uint8_t IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS = 0x65;
constexpr uint8_t REQNTID = 0x10;
constexpr uint8_t FRAME_SIZE = 0x11;
constexpr uint8_t MIN_STACK_SIZE = 0x12;
constexpr uint8_t CRS_STACK_SIZE = 0x1e;
constexpr uint8_t MAX_STACK_SIZE = 0x23;
constexpr uint8_t CUDA_API_VERSION = 0x37;

// .nv.info record formats (EIFMT_*).
constexpr uint8_t FORMAT_NONE = 1;  // EIFMT_NVAL: no value
constexpr uint8_t FORMAT_BYTE = 2;  // EIFMT_BVAL: value in the u16 field
constexpr uint8_t FORMAT_HALF = 3;  // EIFMT_HVAL: u16 value
constexpr uint8_t FORMAT_BYTES = 4; // EIFMT_SVAL: u16 length + payload

// .nv.compat attribute that marks an architecture-specific ("sm_90a") cubin in CUDA 13
// (value 1); e_flags carries no 'a' bit there.
constexpr uint8_t COMPAT_ARCH_SPECIFIC = 0x09;

// Attributes whose payload is a list of u32 instruction offsets into .text.K.
// INDIRECT_BRANCH_TARGETS is one of them but has its own layout (see Cubin::parse).
bool holdsInstructionOffsets(uint8_t attribute);
// Name as Nsight/cuobjdump print it ("EIATTR_REGCOUNT"), or "EIATTR_0x.." when unknown.
std::string attributeName(uint8_t attribute);
// True when attributeName knows the id.
bool isKnownAttribute(uint8_t attribute);
// Splits a .nv.info section into records. fileOffset is where `data` starts in the file; every
// record must fit inside `data` (a length past the end is an Error, not a short read).
Result<std::vector<NvInfoAttribute>> parseRecords(std::span<const uint8_t> data, uint64_t fileOffset);
} // namespace nvinfo

struct KernelParam
{
    uint32_t ordinal = 0;
    uint32_t offset = 0; // in the parameter constant bank
    uint32_t size = 0;
};

struct InstrOffsetList
{
    uint8_t attribute = 0;
    std::vector<uint32_t> offsets;     // byte offsets into .text.K
    std::vector<uint64_t> fileOffsets; // where each offset lives in the file
};

struct Kernel
{
    std::string name;
    int textSection = -1;   // .text.NAME
    int nvInfoSection = -1; // .nv.info.NAME, -1 if none
    int symbol = -1;        // index into Cubin::symbols()
    uint64_t codeSize = 0;  // bytes
    std::vector<NvInfoAttribute> attributes;
    std::vector<KernelParam> params; // sorted by ordinal
    std::optional<uint32_t> paramBankSize;
    std::optional<uint32_t> regCount; // from .nv.info (global REGCOUNT for this function)
    std::optional<uint32_t> maxThreads;
    uint32_t sharedMemStatic = 0;              // size of .nv.shared.NAME
    std::vector<InstrOffsetList> instrOffsets; // every instruction-offset attribute
    std::vector<uint8_t> unknownAttributes;    // ids we could not classify
    std::vector<int> relocations;              // indices into Cubin::relocations() that patch .text.NAME
    bool entry = false;                        // a __global__ kernel (STO_CUDA_ENTRY), not a device function
    std::optional<uint32_t> frameSize;         // global FRAME_SIZE
    std::optional<uint32_t> minStackSize;      // global MIN_STACK_SIZE
    std::optional<uint32_t> maxStackSize;      // global MAX_STACK_SIZE
    std::vector<NvInfoAttribute> globalAttributes; // records of .nv.info whose symbol is this function
};

class Cubin
{
public:
    // Parses an ELF cubin. Never reads out of bounds; every inconsistency is an Error.
    static Result<Cubin> parse(std::vector<uint8_t> bytes);
    static Result<Cubin> load(const std::string& path);

    const std::vector<uint8_t>& bytes() const { return m_bytes; }
    int smVersion() const { return m_sm; } // 90 for sm_90, 0 if unknown
    std::string archName() const;          // "sm_90" / "sm_90a"
    bool archSuffixA() const { return m_archA; }
    uint32_t elfFlags() const { return m_flags; }
    uint8_t abiVersion() const { return m_abiVersion; }

    const std::vector<ElfSection>& sections() const { return m_sections; }
    const std::vector<ElfSymbol>& symbols() const { return m_symbols; }
    const std::vector<Relocation>& relocations() const { return m_relocations; }
    const std::vector<Kernel>& kernels() const { return m_kernels; }
    const Kernel* findKernel(const std::string& name) const;
    int findSection(const std::string& name) const;

    // The raw bytes of a section (empty for SHT_NOBITS).
    std::span<const uint8_t> sectionData(int index) const;
    // Every record of the global .nv.info section (per-function ones are also in Kernel::globalAttributes).
    const std::vector<NvInfoAttribute>& globalAttributes() const { return m_globalAttributes; }

private:
    // parse()'s steps, in order; each fails with the section and what is wrong with it.
    Status readSymbols();
    Status readRelocations();
    Status readKernels();        // one per .text.NAME, with its symbol and relocations
    Status readKernelSections(); // .nv.info.NAME and .nv.shared.NAME
    static Status readKernelAttribute(Kernel& k, const NvInfoAttribute& a, const ElfSection& s, int index);
    Status readGlobalInfo(); // .nv.info: per-function register counts and stack sizes
    Status readCompat();     // .nv.compat: sm_XXa under CUDA 13

    std::vector<uint8_t> m_bytes;
    int m_sm = 0;
    bool m_archA = false;
    uint32_t m_flags = 0;
    uint8_t m_abiVersion = 0;
    std::vector<ElfSection> m_sections;
    std::vector<ElfSymbol> m_symbols;
    std::vector<Relocation> m_relocations;
    std::vector<Kernel> m_kernels;
    std::vector<NvInfoAttribute> m_globalAttributes;
};

} // namespace sassx
