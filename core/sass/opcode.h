#pragma once
// Base opcodes as typed values: one lookup per instruction (when its opcode is parsed), then every rule
// asks `ins.op == Op::FFMA` or a property (`ins.is(kEndsUnconditionally)`) instead of comparing
// strings, so a misspelt opcode in a rule does not compile. The table holds every opcode a rule of
// sassx names, with its class and latency kind (docs/sass-facts.md §4) and its properties; the
// operand tables in semantics.cpp cover exactly the opcodes without kNotInTables. Opcodes outside
// the table are Op::Unknown: opaque, variable latency, and walls for the checker.
#include <cstdint>
#include <string_view>

namespace sassx {

enum class InstrClass : uint8_t
{
    Alu,         // fixed-latency integer / logic
    Fma,         // fixed-latency FP32
    Uniform,     // uniform datapath (U*)
    Mufu,        // variable latency special function
    Conversion,  // F2F/I2F/F2I/FRND, variable latency
    Tensor,      // HMMA/IMMA/DMMA/HGMMA
    LoadGlobal,  // LDG, LD
    StoreGlobal, // STG, ST
    LoadShared,  // LDS, LDSM
    StoreShared, // STS
    LoadLocal,
    StoreLocal,
    AsyncCopy, // LDGSTS, UBLKCP, UTMALDG...
    Atomic,    // ATOM/ATOMG/ATOMS/RED
    LoadConst, // LDC/ULDC
    Texture,
    SpecialReg, // S2R/S2UR/CS2R
    Shuffle,    // SHFL, VOTE, MATCH
    Barrier,    // BAR, MEMBAR, FENCE, ERRBAR, CCTL, DEPBAR, WARPSYNC, SYNCS...
    Branch,     // BRA, EXIT, RET, CALL, BSSY, BSYNC, JMP...
    Nop,
    Other,
};

// Properties of an opcode (OpcodeInfo::flags).
enum OpFlag : uint32_t
{
    kNoDest = 1u << 0,              // the first operand is read, never written (stores, branches, ...)
    kSetsPredicates = 1u << 1,      // xSETP, PLOP3, FCHK: leading predicate operands are its outputs
    kBranchTarget = 1u << 2,        // its last integer immediate is a code address
    kEndsUnconditionally = 1u << 3, // unguarded, no fall-through (BRA, EXIT, RET, ...)
    kIndirect = 1u << 4,            // branches through a register (BRX, JMX, ...)
    kControlFlow = 1u << 5,         // control flow when nvdisasm's JSON does not say (text listings)
    kOrdersAsync = 1u << 6,         // orders asynchronous work (DEPBAR, WARPGROUP, SYNCS, ...)
    kWarpgroupMma = 1u << 7,        // HGMMA and kin: operands by warpgroup, ordered by fences
    kNotInTables = 1u << 8,         // named by a rule, but the operand tables do not know it: opaque
    kCopyEngine = 1u << 9,          // bulk and TMA copies (UTMA*, UBLK*): the copy engine moves the data
};

enum class Latency : uint8_t
{
    Fixed,
    Variable, // scoreboarded
};

// X(name, class, latency, flags): every row one base opcode.
#define SASSX_OPCODES(X)                                                                                     \
    X(IADD3, Alu, Fixed, 0)                                                                                  \
    X(IADD, Alu, Fixed, 0)                                                                                   \
    X(IADD32I, Alu, Fixed, 0)                                                                                \
    X(IMAD, Alu, Fixed, 0)                                                                                   \
    X(IMAD32I, Alu, Fixed, 0)                                                                                \
    X(IMUL, Alu, Fixed, 0)                                                                                   \
    X(IMUL32I, Alu, Fixed, 0)                                                                                \
    X(ISCADD, Alu, Fixed, 0)                                                                                 \
    X(ISCADD32I, Alu, Fixed, 0)                                                                              \
    X(LEA, Alu, Fixed, 0)                                                                                    \
    X(LOP, Alu, Fixed, 0)                                                                                    \
    X(LOP3, Alu, Fixed, 0)                                                                                   \
    X(LOP32I, Alu, Fixed, 0)                                                                                 \
    X(SHF, Alu, Fixed, 0)                                                                                    \
    X(SHL, Alu, Fixed, 0)                                                                                    \
    X(SHR, Alu, Fixed, 0)                                                                                    \
    X(MOV, Alu, Fixed, 0)                                                                                    \
    X(MOV32I, Alu, Fixed, 0)                                                                                 \
    X(SEL, Alu, Fixed, 0)                                                                                    \
    X(FSEL, Alu, Fixed, 0)                                                                                   \
    X(PRMT, Alu, Fixed, 0)                                                                                   \
    X(ISETP, Alu, Fixed, kSetsPredicates)                                                                    \
    X(ICMP, Alu, Fixed, 0)                                                                                   \
    X(IMNMX, Alu, Fixed, 0)                                                                                  \
    X(VIMNMX, Alu, Fixed, 0)                                                                                 \
    X(VIMNMX3, Alu, Fixed, 0)                                                                                \
    X(VIADD, Alu, Fixed, 0)                                                                                  \
    X(VIADDMNMX, Alu, Fixed, 0)                                                                              \
    X(IABS, Alu, Fixed, 0)                                                                                   \
    X(BMSK, Alu, Fixed, 0)                                                                                   \
    X(SGXT, Alu, Fixed, 0)                                                                                   \
    X(PLOP3, Alu, Fixed, kSetsPredicates)                                                                    \
    X(PSETP, Alu, Fixed, kSetsPredicates)                                                                    \
    X(P2R, Alu, Fixed, 0)                                                                                    \
    X(R2P, Alu, Fixed, 0)                                                                                    \
    X(CSET, Alu, Fixed, 0)                                                                                   \
    X(CSETP, Alu, Fixed, kSetsPredicates)                                                                    \
    X(IDP, Alu, Fixed, 0)                                                                                    \
    X(IDP4A, Alu, Fixed, 0)                                                                                  \
    X(LEPC, Alu, Fixed, 0)                                                                                   \
    X(VOTE, Alu, Fixed, 0)                                                                                   \
    X(VOTEU, Alu, Fixed, 0)                                                                                  \
    X(BFE, Alu, Fixed, 0)                                                                                    \
    X(BFI, Alu, Fixed, 0)                                                                                    \
    X(XMAD, Alu, Fixed, 0)                                                                                   \
    X(FLO_FAST, Alu, Fixed, 0)                                                                               \
    X(IMNMX3, Alu, Fixed, 0)                                                                                 \
    X(I2IP, Alu, Fixed, 0)                                                                                   \
    X(R2UR, Alu, Fixed, 0)                                                                                   \
    X(PLOP, Alu, Fixed, 0)                                                                                   \
    X(HSETP2, Alu, Fixed, 0)                                                                                 \
    X(HSET2, Alu, Fixed, 0)                                                                                  \
    X(HADD2, Alu, Fixed, 0)                                                                                  \
    X(HMUL2, Alu, Fixed, 0)                                                                                  \
    X(HFMA2, Alu, Fixed, 0)                                                                                  \
    X(HMNMX2, Alu, Fixed, 0)                                                                                 \
    X(SHFL_FAST, Alu, Fixed, 0)                                                                              \
    X(CS2R, Alu, Fixed, 0)                                                                                   \
    X(FFMA, Fma, Fixed, 0)                                                                                   \
    X(FADD, Fma, Fixed, 0)                                                                                   \
    X(FMUL, Fma, Fixed, 0)                                                                                   \
    X(FMNMX, Fma, Fixed, 0)                                                                                  \
    X(FSETP, Fma, Fixed, kSetsPredicates)                                                                    \
    X(FSET, Fma, Fixed, 0)                                                                                   \
    X(FFMA32I, Fma, Fixed, 0)                                                                                \
    X(FADD32I, Fma, Fixed, 0)                                                                                \
    X(FMUL32I, Fma, Fixed, 0)                                                                                \
    X(FSWZADD, Fma, Fixed, 0)                                                                                \
    X(FCHK, Fma, Fixed, kSetsPredicates)                                                                     \
    X(FMNMX3, Fma, Fixed, 0)                                                                                 \
    X(FADD2, Fma, Fixed, 0)                                                                                  \
    X(FMUL2, Fma, Fixed, 0)                                                                                  \
    X(FFMA2, Fma, Fixed, 0)                                                                                  \
    X(FHADD, Fma, Fixed, 0)                                                                                  \
    X(FHFMA, Fma, Fixed, 0)                                                                                  \
    X(UIADD3, Uniform, Fixed, 0)                                                                             \
    X(UIMAD, Uniform, Fixed, 0)                                                                              \
    X(ULEA, Uniform, Fixed, 0)                                                                               \
    X(ULOP3, Uniform, Fixed, 0)                                                                              \
    X(ULOP, Uniform, Fixed, 0)                                                                               \
    X(ULOP32I, Uniform, Fixed, 0)                                                                            \
    X(USHF, Uniform, Fixed, 0)                                                                               \
    X(USHL, Uniform, Fixed, 0)                                                                               \
    X(USHR, Uniform, Fixed, 0)                                                                               \
    X(UMOV, Uniform, Fixed, 0)                                                                               \
    X(USEL, Uniform, Fixed, 0)                                                                               \
    X(UPRMT, Uniform, Fixed, 0)                                                                              \
    X(UISETP, Uniform, Fixed, kSetsPredicates)                                                               \
    X(UPLOP3, Uniform, Fixed, kSetsPredicates)                                                               \
    X(UPSETP, Uniform, Fixed, kSetsPredicates)                                                               \
    X(UFLO, Uniform, Fixed, 0)                                                                               \
    X(UPOPC, Uniform, Fixed, 0)                                                                              \
    X(UBREV, Uniform, Fixed, 0)                                                                              \
    X(UBMSK, Uniform, Fixed, 0)                                                                              \
    X(USGXT, Uniform, Fixed, 0)                                                                              \
    X(UP2UR, Uniform, Fixed, 0)                                                                              \
    X(UR2UP, Uniform, Fixed, 0)                                                                              \
    X(UIABS, Uniform, Fixed, 0)                                                                              \
    X(UIMNMX, Uniform, Fixed, 0)                                                                             \
    X(UCLEA, Uniform, Fixed, 0)                                                                              \
    X(UVIADD, Uniform, Fixed, 0)                                                                             \
    X(UVIMNMX, Uniform, Fixed, 0)                                                                            \
    X(USETMAXREG, Uniform, Fixed, kNoDest)                                                                   \
    X(UFADD, Uniform, Fixed, 0)                                                                              \
    X(UFFMA, Uniform, Fixed, 0)                                                                              \
    X(UFMUL, Uniform, Fixed, 0)                                                                              \
    X(UFSETP, Uniform, Fixed, kSetsPredicates)                                                               \
    X(UFMNMX, Uniform, Fixed, 0)                                                                             \
    X(UFSEL, Uniform, Fixed, 0)                                                                              \
    X(ULEPC, Uniform, Fixed, 0)                                                                              \
    X(MUFU, Mufu, Variable, 0)                                                                               \
    X(POPC, Mufu, Variable, 0)                                                                               \
    X(FLO, Mufu, Variable, 0)                                                                                \
    X(BREV, Mufu, Variable, 0)                                                                               \
    X(RRO, Mufu, Variable, 0)                                                                                \
    X(F2F, Conversion, Variable, 0)                                                                          \
    X(F2I, Conversion, Variable, 0)                                                                          \
    X(I2F, Conversion, Variable, 0)                                                                          \
    X(I2I, Conversion, Variable, 0)                                                                          \
    X(FRND, Conversion, Variable, 0)                                                                         \
    X(I2FP, Conversion, Variable, 0)                                                                         \
    X(F2IP, Conversion, Variable, 0)                                                                         \
    X(UF2FP, Conversion, Variable, 0)                                                                        \
    X(F2UF, Conversion, Variable, 0)                                                                         \
    X(F2FP, Fma, Fixed, 0)                                                                                   \
    X(DADD, Conversion, Variable, 0)                                                                         \
    X(DFMA, Conversion, Variable, 0)                                                                         \
    X(DMUL, Conversion, Variable, 0)                                                                         \
    X(DSETP, Conversion, Variable, kSetsPredicates)                                                          \
    X(DMNMX, Conversion, Variable, 0)                                                                        \
    X(DSET, Conversion, Variable, 0)                                                                         \
    X(HMMA, Tensor, Variable, 0)                                                                             \
    X(IMMA, Tensor, Variable, 0)                                                                             \
    X(DMMA, Tensor, Variable, 0)                                                                             \
    X(BMMA, Tensor, Variable, 0)                                                                             \
    X(HGMMA, Tensor, Variable, kWarpgroupMma)                                                                \
    X(IGMMA, Tensor, Variable, kWarpgroupMma)                                                                \
    X(QGMMA, Tensor, Variable, kWarpgroupMma)                                                                \
    X(BGMMA, Tensor, Variable, kWarpgroupMma)                                                                \
    X(OMMA, Tensor, Variable, 0)                                                                             \
    X(QMMA, Tensor, Variable, 0)                                                                             \
    X(UTCHMMA, Tensor, Variable, 0)                                                                          \
    X(UTCQMMA, Tensor, Variable, 0)                                                                          \
    X(UTCIMMA, Tensor, Variable, 0)                                                                          \
    X(UTCOMMA, Tensor, Variable, 0)                                                                          \
    X(LDG, LoadGlobal, Variable, 0)                                                                          \
    X(LD, LoadGlobal, Variable, 0)                                                                           \
    X(STG, StoreGlobal, Variable, kNoDest)                                                                   \
    X(ST, StoreGlobal, Variable, kNoDest)                                                                    \
    X(LDS, LoadShared, Variable, 0)                                                                          \
    X(LDSM, LoadShared, Variable, 0)                                                                         \
    X(LDSU, LoadShared, Variable, 0)                                                                         \
    X(STS, StoreShared, Variable, kNoDest)                                                                   \
    X(STSM, StoreShared, Variable, kNoDest)                                                                  \
    X(LDL, LoadLocal, Variable, 0)                                                                           \
    X(STL, StoreLocal, Variable, kNoDest)                                                                    \
    X(LDGSTS, AsyncCopy, Variable, kNoDest)                                                                  \
    X(UBLKCP, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                    \
    X(UBLKPF, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                    \
    X(UBLKRED, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                   \
    X(UTMALDG, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                   \
    X(UTMASTG, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                   \
    X(UTMAPF, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                    \
    X(UTMAREDG, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                  \
    X(UTMACCTL, AsyncCopy, Variable, kNoDest | kCopyEngine)                                                  \
    X(UTMACMDFLUSH, AsyncCopy, Variable, kNoDest | kCopyEngine)                                              \
    X(ATOM, Atomic, Variable, 0)                                                                             \
    X(ATOMG, Atomic, Variable, 0)                                                                            \
    X(ATOMS, Atomic, Variable, 0)                                                                            \
    X(RED, Atomic, Variable, kNoDest)                                                                        \
    X(REDG, Atomic, Variable, kNoDest)                                                                       \
    X(REDAS, Atomic, Variable, kNoDest)                                                                      \
    X(REDUX, Atomic, Variable, 0)                                                                            \
    X(ATOMSX, Atomic, Variable, 0)                                                                           \
    X(LDC, LoadConst, Variable, 0)                                                                           \
    X(LDCU, LoadConst, Variable, 0)                                                                          \
    X(ULDC, Uniform, Fixed, 0)                                                                               \
    X(TEX, Texture, Variable, 0)                                                                             \
    X(TLD, Texture, Variable, 0)                                                                             \
    X(TLD4, Texture, Variable, 0)                                                                            \
    X(TXQ, Texture, Variable, 0)                                                                             \
    X(TMML, Texture, Variable, 0)                                                                            \
    X(TXD, Texture, Variable, 0)                                                                             \
    X(SULD, Texture, Variable, 0)                                                                            \
    X(SUST, Texture, Variable, kNoDest)                                                                      \
    X(SUATOM, Texture, Variable, 0)                                                                          \
    X(SURED, Texture, Variable, kNoDest)                                                                     \
    X(TLDS, Texture, Variable, 0)                                                                            \
    X(TEXS, Texture, Variable, 0)                                                                            \
    X(TLD4S, Texture, Variable, 0)                                                                           \
    X(S2R, SpecialReg, Variable, 0)                                                                          \
    X(S2UR, SpecialReg, Variable, 0)                                                                         \
    X(B2R, SpecialReg, Variable, 0)                                                                          \
    X(GETLMEMBASE, SpecialReg, Variable, 0)                                                                  \
    X(SETLMEMBASE, SpecialReg, Variable, 0)                                                                  \
    X(GETSHMEMSIZE, SpecialReg, Variable, 0)                                                                 \
    X(SHFL, Shuffle, Variable, 0)                                                                            \
    X(MATCH, Shuffle, Variable, 0)                                                                           \
    X(BAR, Barrier, Fixed, kNoDest)                                                                          \
    X(MEMBAR, Barrier, Fixed, kNoDest)                                                                       \
    X(FENCE, Barrier, Fixed, kNoDest)                                                                        \
    X(ERRBAR, Barrier, Fixed, kNoDest)                                                                       \
    X(CCTL, Barrier, Fixed, kNoDest)                                                                         \
    X(CCTLL, Barrier, Fixed, kNoDest)                                                                        \
    X(CCTLT, Barrier, Fixed, 0)                                                                              \
    X(DEPBAR, Barrier, Fixed, kNoDest | kOrdersAsync)                                                        \
    X(LDGDEPBAR, Barrier, Fixed, kNoDest | kOrdersAsync)                                                     \
    X(WARPSYNC, Barrier, Fixed, kNoDest | kBranchTarget | kOrdersAsync)                                      \
    X(SYNCS, Barrier, Fixed, kOrdersAsync)                                                                   \
    X(ELECT, Barrier, Fixed, kOrdersAsync)                                                                   \
    X(WARPGROUP, Barrier, Fixed, kNoDest | kOrdersAsync)                                                     \
    X(ARRIVES, Barrier, Fixed, kNoDest)                                                                      \
    X(NANOSLEEP, Barrier, Fixed, kNoDest)                                                                    \
    X(UCGABAR_ARV, Barrier, Fixed, kNoDest)                                                                  \
    X(UCGABAR_WAIT, Barrier, Fixed, kNoDest)                                                                 \
    X(CGAERRBAR, Barrier, Fixed, kNoDest)                                                                    \
    X(ACQBULK, Barrier, Fixed, kNoDest)                                                                      \
    X(BMOV, Barrier, Fixed, 0)                                                                               \
    X(BSSY, Barrier, Fixed, kBranchTarget | kControlFlow)                                                    \
    X(BSYNC, Barrier, Fixed, kNoDest | kControlFlow)                                                         \
    X(BREAK, Barrier, Fixed, kNoDest | kBranchTarget)                                                        \
    X(BPT, Barrier, Fixed, kNoDest)                                                                          \
    X(PREEXIT, Barrier, Fixed, kNoDest)                                                                      \
    X(ACQSHMINIT, Barrier, Fixed, kNoDest)                                                                   \
    X(R2B, Barrier, Fixed, 0)                                                                                \
    X(CGABAR, Barrier, Fixed, 0)                                                                             \
    X(SETCTAID, Barrier, Fixed, 0)                                                                           \
    X(UCGABAR, Barrier, Fixed, 0)                                                                            \
    X(YIELD, Barrier, Fixed, kNoDest)                                                                        \
    X(KILL, Barrier, Fixed, kNoDest | kEndsUnconditionally)                                                  \
    X(QSPC, Barrier, Fixed, 0)                                                                               \
    X(BRA, Branch, Fixed, kNoDest | kBranchTarget | kEndsUnconditionally | kControlFlow)                     \
    X(BRX, Branch, Fixed, kNoDest | kBranchTarget | kEndsUnconditionally | kIndirect)                        \
    X(BRXU, Branch, Fixed, kNoDest | kEndsUnconditionally | kIndirect)                                       \
    X(JMP, Branch, Fixed, kNoDest | kBranchTarget | kEndsUnconditionally)                                    \
    X(JMX, Branch, Fixed, kNoDest | kEndsUnconditionally | kIndirect)                                        \
    X(JMXU, Branch, Fixed, kNoDest | kEndsUnconditionally | kIndirect)                                       \
    X(EXIT, Branch, Fixed, kNoDest | kEndsUnconditionally | kControlFlow)                                    \
    X(RET, Branch, Fixed, kNoDest | kEndsUnconditionally | kControlFlow)                                     \
    X(CALL, Branch, Fixed, kNoDest | kBranchTarget | kControlFlow)                                           \
    X(RTT, Branch, Fixed, 0)                                                                                 \
    X(JMPX, Branch, Fixed, 0)                                                                                \
    X(CALLX, Branch, Fixed, 0)                                                                               \
    X(BRK, Branch, Fixed, 0)                                                                                 \
    X(CONT, Branch, Fixed, 0)                                                                                \
    X(SSY, Branch, Fixed, kBranchTarget)                                                                     \
    X(SYNC, Branch, Fixed, 0)                                                                                \
    X(PBK, Branch, Fixed, kBranchTarget)                                                                     \
    X(PCNT, Branch, Fixed, kBranchTarget)                                                                    \
    X(PRET, Branch, Fixed, 0)                                                                                \
    X(NOP, Nop, Fixed, kNoDest)                                                                              \
    X(CAL, Other, Variable, kBranchTarget | kNotInTables)

enum class Op : uint16_t
{
    Unknown,
#define SASSX_OPCODE_ENUM(name, cls, latency, flags) name,
    SASSX_OPCODES(SASSX_OPCODE_ENUM)
#undef SASSX_OPCODE_ENUM
};

struct OpcodeInfo
{
    Op op = Op::Unknown;
    std::string_view name; // the base opcode as nvdisasm prints it
    InstrClass cls = InstrClass::Other;
    Latency latency = Latency::Variable;
    uint32_t flags = kNotInTables;

    bool is(uint32_t flag) const { return (flags & flag) != 0; }
    bool known() const { return !is(kNotInTables); } // in the operand tables
};

// The row of `base` (a base opcode: "FFMA", not "FFMA.FTZ"). An opcode outside the table gets a row
// of its own: Op::Unknown, class Other, variable latency, not in the tables, and the properties
// nvdisasm's naming implies (…SETP sets predicates, …GMMA is a warpgroup MMA), so that an opcode
// newer than the table is still read conservatively.
OpcodeInfo describeOpcode(std::string_view base);
// The table's row of a known opcode.
const OpcodeInfo& opcodeInfo(Op op);
std::string_view opcodeName(Op op);

const char* instrClassName(InstrClass cls);

} // namespace sassx
