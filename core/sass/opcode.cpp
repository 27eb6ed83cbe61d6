#include "core/sass/opcode.h"

#include <array>
#include <string>
#include <unordered_map>

namespace sassx {
namespace {

constexpr size_t kRows = 1
#define SASSX_OPCODE_COUNT(name, cls, latency, flags) +1
    SASSX_OPCODES(SASSX_OPCODE_COUNT)
#undef SASSX_OPCODE_COUNT
    ;

const std::array<OpcodeInfo, kRows>& rows()
{
    static const std::array<OpcodeInfo, kRows> table = {OpcodeInfo{},
#define SASSX_OPCODE_ROW(name, cls, latency, flags)                                                          \
    OpcodeInfo{Op::name, #name, InstrClass::cls, Latency::latency, flags},
                                                        SASSX_OPCODES(SASSX_OPCODE_ROW)
#undef SASSX_OPCODE_ROW
    };
    return table;
}

const std::unordered_map<std::string_view, Op>& byName()
{
    static const std::unordered_map<std::string_view, Op> map = [] {
        std::unordered_map<std::string_view, Op> m;
        for (const OpcodeInfo& r : rows())
            if (r.op != Op::Unknown) m.emplace(r.name, r.op);
        return m;
    }();
    return map;
}

} // namespace

OpcodeInfo describeOpcode(std::string_view base)
{
    if (auto it = byName().find(base); it != byName().end()) return opcodeInfo(it->second);
    OpcodeInfo unknown;
    unknown.name = {};
    if (base.ends_with("SETP")) unknown.flags |= kSetsPredicates;
    if (base.size() > 4 && base.ends_with("GMMA")) unknown.flags |= kWarpgroupMma;
    return unknown;
}

const OpcodeInfo& opcodeInfo(Op op)
{
    return rows()[size_t(op)];
}

std::string_view opcodeName(Op op)
{
    return opcodeInfo(op).name;
}

const char* instrClassName(InstrClass cls)
{
    switch (cls) {
    case InstrClass::Alu:
        return "alu";
    case InstrClass::Fma:
        return "fma";
    case InstrClass::Uniform:
        return "uniform";
    case InstrClass::Mufu:
        return "mufu";
    case InstrClass::Conversion:
        return "conversion";
    case InstrClass::Tensor:
        return "tensor";
    case InstrClass::LoadGlobal:
        return "load_global";
    case InstrClass::StoreGlobal:
        return "store_global";
    case InstrClass::LoadShared:
        return "load_shared";
    case InstrClass::StoreShared:
        return "store_shared";
    case InstrClass::LoadLocal:
        return "load_local";
    case InstrClass::StoreLocal:
        return "store_local";
    case InstrClass::AsyncCopy:
        return "async_copy";
    case InstrClass::Atomic:
        return "atomic";
    case InstrClass::LoadConst:
        return "load_const";
    case InstrClass::Texture:
        return "texture";
    case InstrClass::SpecialReg:
        return "special_reg";
    case InstrClass::Shuffle:
        return "shuffle";
    case InstrClass::Barrier:
        return "barrier";
    case InstrClass::Branch:
        return "branch";
    case InstrClass::Nop:
        return "nop";
    case InstrClass::Other:
        return "other";
    }
    return "other";
}

} // namespace sassx
