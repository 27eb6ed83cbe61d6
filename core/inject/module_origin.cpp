#include "core/inject/module_origin.h"

#include <array>
#include <filesystem>
#include <utility>

namespace sassx::inject {

std::optional<std::string> closedSourceLibrary(const std::string& file)
{
    // Prefixes of the file names NVIDIA ships these libraries under (libcublasLt.so.12, libcudnn_engines_
    // precompiled.so.9, ...). NCCL and CUTLASS are open source and not listed.
    static constexpr std::array<std::pair<const char*, const char*>, 16> kLibraries{{
        {"libcublas", "cuBLAS"},
        {"libcudnn", "cuDNN"},
        {"libcufft", "cuFFT"},
        {"libcurand", "cuRAND"},
        {"libcusparse", "cuSPARSE"},
        {"libcusolver", "cuSOLVER"},
        {"libcutensor", "cuTENSOR"},
        {"libcudss", "cuDSS"},
        {"libnvinfer", "TensorRT"},
        {"libnpp", "NPP"},
        {"libnvjpeg", "nvJPEG"},
        {"libnvblas", "NVBLAS"},
        {"libcufile", "cuFile"},
        {"libnvrtc-builtins", "NVRTC's builtins"},
        {"libcudart", "the CUDA runtime"},
        {"libnvJitLink", "nvJitLink"},
    }};
    const std::string name = std::filesystem::path(file).filename().string();
    for (const auto& [prefix, library] : kLibraries)
        if (name.starts_with(prefix)) return std::string(library);
    return std::nullopt;
}

std::string closedSourceReason(const std::string& library)
{
    return library +
           " is NVIDIA's closed-source library: its license does not allow disassembling its kernels";
}

} // namespace sassx::inject
