#pragma once
// Renders a ScheduleDiff: unified text (moved lines marked '>', control changes as S04->S02), JSON,
// and a self-contained HTML side-by-side view (inline CSS/JS, moved instructions linked by SVG lines).
#include "core/rewrite/schedule_diff.h"

#include <nlohmann/json.hpp>

#include <string>

namespace sassx {

struct TextDiffOptions
{
    int context = 3; // unchanged lines shown around each change; < 0: the whole listing
};

std::string diffToText(const ScheduleDiff& diff, const TextDiffOptions& options = {});
nlohmann::json diffToJson(const ScheduleDiff& diff);
std::string diffToHtml(const ScheduleDiff& diff);

} // namespace sassx
