#pragma once
// A finished search kept in a session: its configuration, every evaluation (with base and edits, so any
// point of its plot can be replayed as a variant), the report SearchRun wrote and where it wrote it.
// Qt-free: the session file (session_file.h) saves it and the GUI's SearchJob produces it.
#include "core/common/result.h"
#include "core/search/search_state.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace sassx {

struct SearchRecord
{
    search::SearchConfig config;
    std::vector<search::SearchEvaluation> history; // history[i].step == i
    nlohmann::json report;                         // report.json of the run (search_run.h)
    std::string outDir;                            // where the run wrote best.cubin, diff.html, …

    int bestStep() const;        // report's best evaluation, -1 when the original stayed best
    bool improved() const;       // the report's verdict: a variant clearly beat the original
    double bestSpeedup() const;  // the best's fresh re-measure (1 when nothing improved)
    std::string backend() const; // "gpu" or "estimate" as the run chose
    // "anneal·mem", "anneal(sip)·all+control": the algorithm, its preset and the space.
    std::string label() const;
};

// "anneal·mem" for a configuration (variant names and run lists use it).
std::string searchLabel(const search::SearchConfig& config);

// Edits of evaluation `step` of a kept history (search_state.h).
using search::editsOfEvaluation;

nlohmann::json toJson(const SearchRecord& record);
// Refuses histories whose steps or bases do not chain (a base must come before its evaluation).
Result<SearchRecord> searchRecordFromJson(const nlohmann::json& j);

} // namespace sassx
