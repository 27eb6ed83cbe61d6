// .nv.info attribute names and record splitting. Ids follow the public EIATTR listings (GVirtuS,
// open disassembler projects); names after 0x5a are not public yet and print as EIATTR_0x...
#include "core/cubin/cubin.h"
#include "core/cubin/elf_reader.h"

#include <array>
#include <cstdio>

namespace sassx::nvinfo {

namespace {

// Indexed by attribute id; nullptr = unknown.
constexpr std::array<const char*, 0x5b> kNames = {
    "EIATTR_ERROR",                           // 0x00
    "EIATTR_PAD",                             // 0x01
    "EIATTR_IMAGE_SLOT",                      // 0x02
    "EIATTR_JUMPTABLE_RELOCS",                // 0x03
    "EIATTR_CTAIDZ_USED",                     // 0x04
    "EIATTR_MAX_THREADS",                     // 0x05
    "EIATTR_IMAGE_OFFSET",                    // 0x06
    "EIATTR_IMAGE_SIZE",                      // 0x07
    "EIATTR_TEXTURE_NORMALIZED",              // 0x08
    "EIATTR_SAMPLER_INIT",                    // 0x09
    "EIATTR_PARAM_CBANK",                     // 0x0a
    "EIATTR_SMEM_PARAM_OFFSETS",              // 0x0b
    "EIATTR_CBANK_PARAM_OFFSETS",             // 0x0c
    "EIATTR_SYNC_STACK",                      // 0x0d
    "EIATTR_TEXID_SAMPID_MAP",                // 0x0e
    "EIATTR_EXTERNS",                         // 0x0f
    "EIATTR_REQNTID",                         // 0x10
    "EIATTR_FRAME_SIZE",                      // 0x11
    "EIATTR_MIN_STACK_SIZE",                  // 0x12
    "EIATTR_SAMPLER_FORCE_UNNORMALIZED",      // 0x13
    "EIATTR_BINDLESS_IMAGE_OFFSETS",          // 0x14
    "EIATTR_BINDLESS_TEXTURE_BANK",           // 0x15
    "EIATTR_BINDLESS_SURFACE_BANK",           // 0x16
    "EIATTR_KPARAM_INFO",                     // 0x17
    "EIATTR_SMEM_PARAM_SIZE",                 // 0x18
    "EIATTR_CBANK_PARAM_SIZE",                // 0x19
    "EIATTR_QUERY_NUMATTRIB",                 // 0x1a
    "EIATTR_MAXREG_COUNT",                    // 0x1b
    "EIATTR_EXIT_INSTR_OFFSETS",              // 0x1c
    "EIATTR_S2RCTAID_INSTR_OFFSETS",          // 0x1d
    "EIATTR_CRS_STACK_SIZE",                  // 0x1e
    "EIATTR_NEED_CNP_WRAPPER",                // 0x1f
    "EIATTR_NEED_CNP_PATCH",                  // 0x20
    "EIATTR_EXPLICIT_CACHING",                // 0x21
    "EIATTR_ISTYPEP_USED",                    // 0x22
    "EIATTR_MAX_STACK_SIZE",                  // 0x23
    "EIATTR_SUQ_USED",                        // 0x24
    "EIATTR_LD_CACHEMOD_INSTR_OFFSETS",       // 0x25
    "EIATTR_LOAD_CACHE_REQUEST",              // 0x26
    "EIATTR_ATOM_SYS_INSTR_OFFSETS",          // 0x27
    "EIATTR_COOP_GROUP_INSTR_OFFSETS",        // 0x28
    "EIATTR_COOP_GROUP_MAX_REGIDS",           // 0x29
    "EIATTR_SW1850030_WAR",                   // 0x2a
    "EIATTR_WMMA_USED",                       // 0x2b
    "EIATTR_HAS_PRE_V10_OBJECT",              // 0x2c
    "EIATTR_ATOMF16_EMUL_INSTR_OFFSETS",      // 0x2d
    "EIATTR_ATOM16_EMUL_INSTR_REG_MAP",       // 0x2e
    "EIATTR_REGCOUNT",                        // 0x2f
    "EIATTR_SW2393858_WAR",                   // 0x30
    "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS",     // 0x31
    "EIATTR_SHARED_SCRATCH",                  // 0x32
    "EIATTR_STATISTICS",                      // 0x33
    "EIATTR_INDIRECT_BRANCH_TARGETS",         // 0x34
    "EIATTR_SW2861232_WAR",                   // 0x35
    "EIATTR_SW_WAR",                          // 0x36
    "EIATTR_CUDA_API_VERSION",                // 0x37
    "EIATTR_NUM_MBARRIERS",                   // 0x38
    "EIATTR_MBARRIER_INSTR_OFFSETS",          // 0x39
    "EIATTR_COROUTINE_RESUME_ID_OFFSETS",     // 0x3a
    "EIATTR_SAM_REGION_STACK_SIZE",           // 0x3b
    "EIATTR_PER_REG_TARGET_PERF_STATS",       // 0x3c
    "EIATTR_CTA_PER_CLUSTER",                 // 0x3d
    "EIATTR_EXPLICIT_CLUSTER",                // 0x3e
    "EIATTR_MAX_CLUSTER_RANK",                // 0x3f
    "EIATTR_INSTR_REG_MAP",                   // 0x40
    "EIATTR_RESERVED_SMEM_USED",              // 0x41
    "EIATTR_RESERVED_SMEM_0_SIZE",            // 0x42
    "EIATTR_UCODE_SECTION_DATA",              // 0x43
    "EIATTR_UNUSED_LOAD_BYTE_OFFSET",         // 0x44
    "EIATTR_KPARAM_INFO_V2",                  // 0x45
    "EIATTR_SYSCALL_OFFSETS",                 // 0x46
    "EIATTR_SW_WAR_MEMBAR_SYS_INSTR_OFFSETS", // 0x47
    "EIATTR_GRAPHICS_GLOBAL_CBANK",           // 0x48
    "EIATTR_SHADER_TYPE",                     // 0x49
    "EIATTR_VRC_CTA_INIT_COUNT",              // 0x4a
    "EIATTR_TOOLS_PATCH_FUNC",                // 0x4b
    "EIATTR_NUM_BARRIERS",                    // 0x4c
    "EIATTR_TEXMODE_INDEPENDENT",             // 0x4d
    "EIATTR_PERF_STATISTICS",                 // 0x4e
    "EIATTR_AT_ENTRY_FRAGMENTS",              // 0x4f
    "EIATTR_SPARSE_MMA_MASK",                 // 0x50
    "EIATTR_TCGEN05_1CTA_USED",               // 0x51
    "EIATTR_TCGEN05_2CTA_USED",               // 0x52
    "EIATTR_GEN_ERRBAR_AT_EXIT",              // 0x53
    "EIATTR_REG_RECONFIG",                    // 0x54
    "EIATTR_ANNOTATIONS",                     // 0x55
    "EIATTR_SANITIZE",                        // 0x56
    "EIATTR_STACK_CANARY_TRAP_OFFSETS",       // 0x57
    "EIATTR_STUB_FUNCTION_KIND",              // 0x58
    "EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS",   // 0x59
    "EIATTR_MERCURY_FINALIZER_OPTIONS",       // 0x5a
};

} // namespace

bool isKnownAttribute(uint8_t attribute)
{
    return attribute < kNames.size() || attribute == IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS;
}

std::string attributeName(uint8_t attribute)
{
    if (attribute < kNames.size()) return kNames[attribute];
    if (attribute == IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS)
        return "EIATTR_IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS";
    char buf[16];
    std::snprintf(buf, sizeof buf, "EIATTR_0x%02x", attribute);
    return buf;
}

bool holdsInstructionOffsets(uint8_t attribute)
{
    switch (attribute) {
    case EXIT_INSTR_OFFSETS:
    case S2RCTAID_INSTR_OFFSETS:
    case LD_CACHEMOD_INSTR_OFFSETS:
    case ATOM_SYS_INSTR_OFFSETS:
    case COOP_GROUP_INSTR_OFFSETS:
    case INT_WARP_WIDE_INSTR_OFFSETS:
    case INDIRECT_BRANCH_TARGETS:
    case MBARRIER_INSTR_OFFSETS:
    case COROUTINE_RESUME_ID_OFFSETS:
    case SW_WAR_MEMBAR_SYS_INSTR_OFFSETS:
    case IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS:
        return true;
    default:
        return false;
    }
}

Result<std::vector<NvInfoAttribute>> parseRecords(std::span<const uint8_t> data, uint64_t fileOffset)
{
    std::vector<NvInfoAttribute> records;
    uint64_t pos = 0;
    while (pos < data.size()) {
        if (!elf::fits(data.size(), pos, 4))
            return makeError("truncated .nv.info record at " + elf::hex(fileOffset + pos) + " (" +
                             std::to_string(data.size() - pos) + " bytes left, need 4)");
        NvInfoAttribute rec;
        rec.format = data[pos];
        rec.attribute = data[pos + 1];
        rec.value = elf::readLe<uint16_t>(data, pos + 2);
        rec.fileOffset = fileOffset + pos;
        pos += 4;
        if (rec.format < FORMAT_NONE || rec.format > FORMAT_BYTES)
            return makeError("unknown .nv.info record format " + std::to_string(rec.format) + " at " +
                             elf::hex(rec.fileOffset) + " (attribute " + attributeName(rec.attribute) + ")");
        if (rec.format == FORMAT_BYTES) {
            if (!elf::fits(data.size(), pos, rec.value))
                return makeError(attributeName(rec.attribute) + " at " + elf::hex(rec.fileOffset) +
                                 " claims " + std::to_string(rec.value) + " payload bytes but only " +
                                 std::to_string(data.size() - pos) + " remain in the section");
            rec.payload.assign(data.begin() + pos, data.begin() + pos + rec.value);
            // ptxas writes lengths that are multiples of 4, so records stay 4-byte aligned; no padding.
            pos += rec.value;
        }
        records.push_back(std::move(rec));
    }
    return records;
}

} // namespace sassx::nvinfo
