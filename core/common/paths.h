#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace sassx {

// resources/ (latency tables, metric lists): $SASSX_RESOURCES, then beside the installed binary
// (../share/sassx/resources), then the source tree the binary was built from.
std::filesystem::path resourcesDir();

// Directory of the running executable (from /proc/self/exe), empty if unknown.
std::filesystem::path executableDir();

} // namespace sassx
