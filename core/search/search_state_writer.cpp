#include "core/search/search_state_writer.h"

namespace sassx::search {

void SearchStateWriter::update(const SearchState& state)
{
    // A history never shrinks within a run; one that did is another run's: start afresh.
    if (state.history.size() < m_rows.size()) m_rows.clear();
    m_rows.reserve(state.history.size());
    for (size_t i = 0; i < state.history.size(); ++i) {
        const SearchEvaluation& e = state.history[i];
        if (i < m_rows.size()) {
            Row& r = m_rows[i];
            if (r.outcome == e.outcome && r.best == e.best && r.step == e.step) continue;
            r = Row{};
        } else {
            m_rows.emplace_back();
        }
        Row& r = m_rows[i];
        r.outcome = e.outcome;
        r.best = e.best;
        r.step = e.step;
        r.json = toJson(e).dump();
        r.csv = historyCsvRow(e);
    }
}

std::string SearchStateWriter::checkpointJson(const SearchState& state, const nlohmann::json& extra)
{
    update(state);
    nlohmann::json head = toJsonWithoutHistory(state);
    if (extra.is_object())
        for (auto it = extra.begin(); it != extra.end(); ++it)
            head[it.key()] = it.value();
    const std::string rest = head.dump(); // "{...}", never empty: the state has its fields
    size_t size = rest.size() + 16;
    for (const Row& r : m_rows)
        size += r.json.size() + 1;
    std::string out;
    out.reserve(size);
    out += "{\"history\":[";
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (i) out += ',';
        out += m_rows[i].json;
    }
    out += "],";
    out.append(rest, 1, std::string::npos);
    return out;
}

std::string SearchStateWriter::historyCsv(const SearchState& state)
{
    update(state);
    std::string out = historyCsvHeader();
    size_t size = out.size();
    for (const Row& r : m_rows)
        size += r.csv.size();
    out.reserve(size);
    for (const Row& r : m_rows)
        out += r.csv;
    return out;
}

} // namespace sassx::search
