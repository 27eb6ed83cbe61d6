#pragma once
// Runs NVIDIA's disassembler. Found through $SASSX_NVDISASM, $CUDA_HOME/bin, PATH, then the
// nvidia-cuda-nvdisasm wheel in python3's site-packages.
#include "core/common/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace sassx {

struct NvdisasmLocation
{
    std::filesystem::path path;
    std::vector<std::string> tried; // every place looked at, in order, for the error message
};

Result<std::filesystem::path> findNvdisasm();

// Runs nvdisasm with args on the given bytes (written to a temp file, its path last) and returns what it
// printed, whatever its exit status; with mergeStderr its complaints come interleaved with stdout (all of
// them, where ProcessOutput::err keeps only the tail). Fails only when it cannot run or times out.
struct ProcessOutput;
Result<ProcessOutput> runNvdisasmOutput(const std::vector<uint8_t>& bytes,
                                        const std::vector<std::string>& args, bool mergeStderr,
                                        int timeoutMs = 120000);

// Runs nvdisasm with args on the given cubin bytes (written to a temp file). Returns stdout.
// Fails with nvdisasm's stderr when it exits non-zero, or after timeoutMs.
Result<std::string> runNvdisasm(const std::vector<uint8_t>& cubin, const std::vector<std::string>& args,
                                int timeoutMs = 120000);

} // namespace sassx
