#include "core/tune/tune_task.h"

#include <filesystem>

namespace sassx::tune {

namespace fs = std::filesystem;

std::string taskDbPath(const std::string& runsDir, const std::string& kernel)
{
    return (fs::path(runsDir) / kernel / "task.sqlite").string();
}

Result<std::unique_ptr<TuneDb>> openTaskDb(const std::string& runsDir, const std::string& kernel)
{
    const fs::path path = taskDbPath(runsDir, kernel);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return makeError("cannot create " + path.parent_path().string() + ": " + ec.message());
    return TuneDb::open(path.string(), TuneDbJournal::Rollback);
}

} // namespace sassx::tune
