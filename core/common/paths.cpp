#include "core/common/paths.h"

#include <cstdlib>
#include <system_error>

namespace sassx {

std::filesystem::path executableDir()
{
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path{} : exe.parent_path();
}

std::filesystem::path resourcesDir()
{
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("SASSX_RESOURCES"); env && *env) return env;
    std::error_code ec;
    if (auto dir = executableDir(); !dir.empty()) {
        auto installed = dir / ".." / "share" / "sassx" / "resources";
        if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec);
    }
    return fs::path(SASSX_SOURCE_DIR) / "resources";
}

} // namespace sassx
