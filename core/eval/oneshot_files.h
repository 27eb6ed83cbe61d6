#pragma once
// A temporary folder holding a launch spec and a cubin for `sassx-worker --oneshot` /
// `--cupti-oneshot`, the one-launch runners that metric collection starts as child processes (so a
// profiler never runs in a worker that times candidates). Removed when the object goes.
#include "core/common/result.h"
#include "core/eval/launch_spec.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace sassx::eval {

class OneshotFiles
{
public:
    static Result<std::unique_ptr<OneshotFiles>> create(const LaunchSpec& spec,
                                                        const std::vector<uint8_t>& cubin);
    ~OneshotFiles();
    OneshotFiles(const OneshotFiles&) = delete;
    OneshotFiles& operator=(const OneshotFiles&) = delete;

    std::string specPath() const { return (m_dir / "spec.json").string(); }
    std::string cubinPath() const { return (m_dir / "kernel.cubin").string(); }

private:
    OneshotFiles() = default;
    std::filesystem::path m_dir;
};

// This process's executable (the worker re-runs itself as the one-launch runner).
std::string selfExecutable();

} // namespace sassx::eval
