#pragma once
// The JSON form of an edit list inside search checkpoints and histories: Variant's "edits" array, so a
// checkpoint's edits read back with the same parser as a variant file.
#include "core/common/result.h"
#include "core/rewrite/variant.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace sassx::search {

nlohmann::json editsJson(const std::vector<Edit>& edits);
Result<std::vector<Edit>> editsFromJson(const nlohmann::json& j);

} // namespace sassx::search
