#pragma once
// The text of a search's checkpoint (checkpoint.json) and history (history.csv), kept between
// checkpoints so that writing one costs the evaluations made since the last, not the whole history.
// Serialising the whole history at every checkpoint made a long search spend most of its time writing:
// on attention_fwd, 5,000 evaluations took 26.7 s with a checkpoint every 25 and 3.7 s without one, and
// a search on four GPUs lost about 100 ms of each batch to it (docs/search.md, "Checkpoints").
#include "core/search/search_state.h"

#include <string>
#include <vector>

namespace sassx::search {

class SearchStateWriter
{
public:
    // toJson(state) with `extra`'s keys added at the top level, as one line of JSON. Parsing it gives
    // exactly toJson(state) + extra (the keys in another order).
    std::string checkpointJson(const SearchState& state, const nlohmann::json& extra = {});
    // historyCsvHeader() and one historyCsvRow() per evaluation.
    std::string historyCsv(const SearchState& state);

private:
    // One evaluation's texts and the fields a search may still change after recording it (the outcome
    // of a later-accepted best, its best flag); a change of either writes the row again.
    struct Row
    {
        Outcome outcome = Outcome::Rejected;
        bool best = false;
        int step = -1;
        std::string json;
        std::string csv;
    };
    void update(const SearchState& state);

    std::vector<Row> m_rows;
};

} // namespace sassx::search
