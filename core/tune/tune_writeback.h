#pragma once
// `sassx-cli tune DIR --write-back` and `--restore` (docs/tune.md): every kernel's verified best into
// its Triton cache entry, through the same write-back and backup as `sassx-cli triton-export`
// (core/session/schedule_exports.h), and the undo. Only a best that clearly improved and was re-checked
// correct on fresh inputs is written: an estimate's best ran nowhere, so it never is.
#include "core/tune/tune_db.h"

#include <string>
#include <vector>

namespace sassx::tune {

struct WriteBackLine
{
    std::string kernel;
    bool changed = false; // an entry was written (or restored)
    bool failed = false;  // the entry could not be written or restored
    std::string message;  // one line
};

std::vector<WriteBackLine> writeBackBests(TuneDb& db);
std::vector<WriteBackLine> restoreBests(TuneDb& db);

} // namespace sassx::tune
