#include "core/search/edits_json.h"

namespace sassx::search {

nlohmann::json editsJson(const std::vector<Edit>& edits)
{
    Variant v;
    v.edits = edits;
    return v.toJson()["edits"];
}

Result<std::vector<Edit>> editsFromJson(const nlohmann::json& j)
{
    auto v = Variant::fromJson(nlohmann::json{{"edits", j}});
    if (!v) return v.error();
    return std::move(v->edits);
}

} // namespace sassx::search
