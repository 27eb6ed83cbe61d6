#include "core/eval/kernel_args.h"

#include "core/eval/input_gen.h"

namespace sassx::eval {

namespace {

void storeAddress(uint64_t address, uint8_t* dst)
{
    // Device addresses are little-endian in the parameter bank on every GPU sassx targets; written byte
    // by byte so the host's order never matters.
    for (int b = 0; b < 8; ++b)
        dst[b] = uint8_t(address >> (8 * b));
}

} // namespace

std::vector<uint8_t> patchedBytes(const ParamSpec& p, std::span<const uint64_t> slotAddress)
{
    std::vector<uint8_t> out = p.raw;
    for (const PointerPatch& patch : p.pointers)
        storeAddress(slotAddress[size_t(patch.root)] + patch.rootOffset, out.data() + patch.at);
    return out;
}

std::vector<uint8_t> kernelArgBytes(const LaunchSpec& spec, size_t index,
                                    std::span<const uint64_t> slotAddress)
{
    const ParamSpec& p = spec.params[index];
    std::vector<uint8_t> out(8, 0);
    switch (p.kind) {
    case ParamKind::Scalar:
        return scalarBytes(p);
    case ParamKind::Bytes:
        return patchedBytes(p, slotAddress);
    case ParamKind::Null:
        break;
    case ParamKind::Buffer:
        storeAddress(p.isAlias() ? slotAddress[size_t(p.aliasRoot)] + p.rootOffset : slotAddress[index],
                     out.data());
        break;
    }
    return out;
}

} // namespace sassx::eval
