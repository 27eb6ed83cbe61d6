#pragma once
// Where a loaded module came from, and whether sassx may open it. A module whose image lies inside a
// shared library's mapped file came from that library (dladdr in the hook); one in heap memory was
// compiled at run time (NVRTC, XLA, Triton). NVIDIA's closed-source libraries are listed with their
// share of GPU time and never captured: their licenses do not allow disassembling them.
#include "core/common/enum_names.h"

#include <optional>
#include <string>

namespace sassx::inject {

enum class OriginKind
{
    Library, // a shared library's file (libtorch_cuda.so, a cpp_extension, jaxlib)
    Jit,     // an image in memory: NVRTC, XLA's ptxas output, Triton
    Triton,  // decided by the capture's Triton hooks, which name the same cubin
};

inline constexpr std::array<EnumName<OriginKind>, 3> kOriginKindNames{{
    {OriginKind::Library, "library"},
    {OriginKind::Jit, "jit"},
    {OriginKind::Triton, "triton"},
}};

struct ModuleOrigin
{
    OriginKind kind = OriginKind::Jit;
    // Library: the library's path; Jit: the library whose code loaded the image, "" when unknown (an image
    // in memory carries its loader's license: a closed-source library's decompressed kernels are its own).
    std::string file;
};

// The closed-source NVIDIA library `file` is part of ("cuBLAS", "cuDNN", ...), or nullopt. By the file
// name, so that copies in pip wheels (site-packages/nvidia/cublas/lib) and the toolkit match alike.
std::optional<std::string> closedSourceLibrary(const std::string& file);

// The one line a listing prints for such a kernel.
std::string closedSourceReason(const std::string& library);

} // namespace sassx::inject
