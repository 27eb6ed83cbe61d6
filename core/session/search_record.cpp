#include "core/session/search_record.h"

namespace sassx {

using nlohmann::json;

namespace {

const json& bestOf(const json& report)
{
    static const json none = json::object();
    if (!report.is_object()) return none;
    auto it = report.find("best");
    return it != report.end() && it->is_object() ? *it : none;
}

} // namespace

int SearchRecord::bestStep() const
{
    const json& b = bestOf(report);
    return b.contains("step") && b.at("step").is_number_integer() ? b.at("step").get<int>() : -1;
}

bool SearchRecord::improved() const
{
    return report.is_object() && report.value("improved", false);
}

double SearchRecord::bestSpeedup() const
{
    const json& b = bestOf(report);
    if (!improved() || !b.contains("final") || !b.at("final").is_object()) return 1.0;
    return b.at("final").value("speedup", 1.0);
}

std::string SearchRecord::backend() const
{
    if (!report.is_object() || !report.contains("evaluator") || !report.at("evaluator").is_object())
        return {};
    return report.at("evaluator").value("backend", std::string());
}

std::string SearchRecord::label() const
{
    return searchLabel(config);
}

std::string searchLabel(const search::SearchConfig& config)
{
    std::string s = search::algorithmName(config.algorithm);
    if (config.preset != search::AnnealPreset::Default) s += "(" + search::presetName(config.preset) + ")";
    return s + "\u00b7" + search::spaceName(config.space);
}

json toJson(const SearchRecord& record)
{
    json history = json::array();
    for (const auto& e : record.history)
        history.push_back(search::toJson(e));
    return {{"config", search::toJson(record.config)},
            {"out_dir", record.outDir},
            {"report", record.report},
            {"history", history}};
}

Result<SearchRecord> searchRecordFromJson(const json& j)
{
    if (!j.is_object()) return makeError("a search record is not a JSON object");
    if (!j.contains("config")) return makeError("a search record has no configuration");
    auto config = search::searchConfigFromJson(j.at("config"));
    if (!config) return makeError("search record: " + config.message());
    SearchRecord r;
    r.config = *config;
    r.outDir = j.value("out_dir", std::string());
    r.report = j.value("report", json::object());
    if (!j.contains("history") || !j.at("history").is_array())
        return makeError("search record '" + r.label() + "' has no history array");
    for (const json& row : j.at("history")) {
        auto e = search::evaluationFromJson(row);
        if (!e) return makeError("search record '" + r.label() + "': " + e.message());
        const int step = int(r.history.size());
        if (e->step != step || e->base >= step || e->base < -1)
            return makeError("search record '" + r.label() + "': evaluation " + std::to_string(e->step) +
                             " is out of order (expected step " + std::to_string(step) + ")");
        r.history.push_back(std::move(*e));
    }
    return r;
}

} // namespace sassx
