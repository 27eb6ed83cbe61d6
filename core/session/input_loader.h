#pragma once
// Turns whatever the user has into cubins: a cubin, a fatbin, a host executable or library, CUDA C++
// or PTX (compiled with nvcc/ptxas for a chosen arch), or a Triton cache entry directory.
#include "core/common/enum_names.h"
#include "core/common/result.h"
#include "core/cubin/cubin.h"
// Re-exported: what the architecture allows on a loaded cubin (editRefusal, mercSections), which `info`
// states per cubin before any kernel is opened, and the default architecture (kDefaultArch).
#include "core/analysis/arch_model.h"

#include <string>
#include <vector>

namespace sassx {

struct LoadOptions
{
    std::string arch = kDefaultArch; // for .cu / .ptx
    std::vector<std::string> extraCompilerArgs;
    int compileTimeoutMs = 300000;
};

struct LoadedCubin
{
    std::string origin; // "file.cubin", "fatbin entry 2 of app", "nvcc -arch=sm_90 k.cu"
    Cubin cubin;
};

// What the input was; a Triton cache entry is the one a front end can write a tuned cubin back into.
enum class InputKind
{
    Cubin,
    Fatbin,
    HostBinary,
    Cuda,
    Ptx,
    TritonCache,
};

// The names `sassx-cli info` prints.
inline constexpr std::array<EnumName<InputKind>, 6> kInputKindNames{{
    {InputKind::Cubin, "cubin"},
    {InputKind::Fatbin, "fatbin"},
    {InputKind::HostBinary, "host-binary"},
    {InputKind::Cuda, "cuda"},
    {InputKind::Ptx, "ptx"},
    {InputKind::TritonCache, "triton-cache"},
}};
inline std::string inputKindName(InputKind k)
{
    return std::string(enumName(kInputKindNames, k));
}

struct LoadedInput
{
    std::string path;
    InputKind kind = InputKind::Cubin;
    std::vector<LoadedCubin> cubins;
    std::string tritonMetadataPath; // for triton-cache inputs
};

Result<LoadedInput> loadInput(const std::string& path, const LoadOptions& options = {});

// What opening `path` means, decided before anything is loaded (a front end asks first, e.g. for the
// arch to compile for).
struct InputTarget
{
    std::string path;         // what to load: the entry's directory when `path` is one of its files
    bool tritonEntry = false; // a Triton cache entry (write-back needs the whole entry, not its cubin)
    bool needsArch = false;   // CUDA C++ or PTX: compiled for LoadOptions::arch
    // A SQLite file, by its header: not a kernel but a tune database (docs/tune.md), which the GUI opens
    // as its dashboard (whether it is one of this version is the tune layer's to say).
    bool sqliteDatabase = false;
};
InputTarget classifyInput(const std::string& path);

// nvcc/ptxas discovery: $CUDA_HOME/bin, PATH, /usr/local/cuda/bin.
Result<std::string> findCudaTool(const std::string& name);

} // namespace sassx
