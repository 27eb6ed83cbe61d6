#pragma once
// The SASS model of one kernel: nvdisasm's JSON joined with the raw words from the cubin.
#include "core/common/result.h"
#include "core/sass/instruction.h"

#include <string>
#include <vector>

namespace sassx {

class Cubin;

struct KernelListing
{
    std::string kernel;
    int sm = 0; // 90 for sm_90
    std::vector<Instruction> instructions;
};

// Builds the listing of every kernel in one nvdisasm call.
Result<std::vector<KernelListing>> disassemble(const Cubin& cubin);
Result<KernelListing> disassembleKernel(const Cubin& cubin, const std::string& kernel);

// Parses nvdisasm -json output and joins it with the cubin's code bytes (exposed for tests and
// benchmarks, which bypass the nvdisasm process).
Result<std::vector<KernelListing>> listingsFromJson(const Cubin& cubin, const std::string& json);

// Builds one instruction from listing text ("@!P0 LDG.E.64 R4, desc[UR6][R2.64]") and control bits:
// used by tests and tools that reason about hand-written sequences. Raw words hold only the control.
Instruction makeInstruction(const std::string& text, const Control& control, int sm = 90);
KernelListing makeListing(const std::vector<std::pair<std::string, Control>>& lines, int sm = 90);

// Parses one "operands" string as nvdisasm prints it into Operand values.
std::vector<Operand> parseOperands(const std::string& text);

} // namespace sassx
