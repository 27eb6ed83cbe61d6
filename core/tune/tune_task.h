#pragma once
// The database of one Slurm array task (docs/tune.md, "On a cluster"). SQLite must not be written from
// several hosts, and the tune's database may not even be reachable from a node, so a task records only
// into a file of its own inside its kernel's run directory (which that task alone writes); the
// submitting process merges it into the tune's database as the task ends (TuneDb::mergeTaskDb).
#include "core/common/result.h"
#include "core/tune/tune_db.h"

#include <memory>
#include <string>

namespace sassx::tune {

// RUNS_DIR/<kernel>/task.sqlite: where the task that tunes `kernel` records its run.
std::string taskDbPath(const std::string& runsDir, const std::string& kernel);

// Opens (creating it and its run directory when missing) the task's own database, with a rollback
// journal: the submitter reads it from another host once the task has ended.
Result<std::unique_ptr<TuneDb>> openTaskDb(const std::string& runsDir, const std::string& kernel);

} // namespace sassx::tune
