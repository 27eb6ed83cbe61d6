#include "core/sass/instruction.h"

namespace sassx {

bool Instruction::isMemory() const
{
    switch (cls) {
    case InstrClass::LoadGlobal:
    case InstrClass::StoreGlobal:
    case InstrClass::LoadShared:
    case InstrClass::StoreShared:
    case InstrClass::LoadLocal:
    case InstrClass::StoreLocal:
    case InstrClass::AsyncCopy:
    case InstrClass::Atomic:
    case InstrClass::Texture:
        return true;
    default:
        return false;
    }
}

bool Instruction::writesMemory() const
{
    switch (cls) {
    case InstrClass::StoreGlobal:
    case InstrClass::StoreShared:
    case InstrClass::StoreLocal:
    case InstrClass::AsyncCopy:
    case InstrClass::Atomic:
        return true;
    case InstrClass::Texture:
        return op == Op::SUST || op == Op::SURED || op == Op::SUATOM;
    default:
        return false;
    }
}

bool Instruction::readsMemory() const
{
    switch (cls) {
    case InstrClass::LoadGlobal:
    case InstrClass::LoadShared:
    case InstrClass::LoadLocal:
    case InstrClass::AsyncCopy:
    case InstrClass::Atomic:
    case InstrClass::Texture:
        return true;
    default:
        return false;
    }
}

std::string Instruction::text() const
{
    std::string s;
    if (!predicateText.empty()) s = predicateText + " ";
    s += opcode;
    if (!operandText.empty()) s += " " + operandText;
    return s;
}

} // namespace sassx
