#include "core/analysis/latency_key.h"

#include <array>
#include <vector>

namespace sassx {
namespace {

constexpr std::array<OperandRole, 6> kRoles = {OperandRole::Reg,  OperandRole::Guard, OperandRole::Addr,
                                               OperandRole::Data, OperandRole::Pred,  OperandRole::Ur};
constexpr std::array<RegFile, 5> kFiles = {RegFile::R, RegFile::UR, RegFile::P, RegFile::UP, RegFile::B};

std::vector<std::string_view> split(std::string_view text)
{
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == '|') {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

} // namespace

const char* operandRoleName(OperandRole role)
{
    switch (role) {
    case OperandRole::Reg:
        return "reg";
    case OperandRole::Guard:
        return "guard";
    case OperandRole::Addr:
        return "addr";
    case OperandRole::Data:
        return "data";
    case OperandRole::Pred:
        return "pred";
    case OperandRole::Ur:
        return "ur";
    }
    return "reg";
}

const char* regFileKey(RegFile file)
{
    switch (file) {
    case RegFile::R:
        return "R";
    case RegFile::UR:
        return "UR";
    case RegFile::P:
        return "P";
    case RegFile::UP:
        return "UP";
    case RegFile::B:
        return "B";
    }
    return "B";
}

LatencyKey LatencyKey::raw(std::string first, std::string second, OperandRole role)
{
    return {DepCategory::Raw, std::move(first), std::move(second), role, RegFile::R};
}

LatencyKey LatencyKey::war(std::string first, std::string second, RegFile file)
{
    return {DepCategory::War, std::move(first), std::move(second), OperandRole::Reg, file};
}

LatencyKey LatencyKey::waw(std::string first, std::string second, RegFile file)
{
    return {DepCategory::Waw, std::move(first), std::move(second), OperandRole::Reg, file};
}

LatencyKey LatencyKey::scoreboard(std::string first, std::string second)
{
    return {DepCategory::Scoreboard, std::move(first), std::move(second), OperandRole::Reg, RegFile::R};
}

LatencyKey LatencyKey::spacing(std::string baseOpcode)
{
    return {DepCategory::Spacing, std::move(baseOpcode), {}, OperandRole::Reg, RegFile::R};
}

std::string LatencyKey::name() const
{
    switch (category) {
    case DepCategory::Raw:
        return "RAW|" + first + "|" + second + "|" + operandRoleName(role);
    case DepCategory::War:
        return "WAR|" + first + "|" + second + "|" + regFileKey(file);
    case DepCategory::Waw:
        return "WAW|" + first + "|" + second + "|" + regFileKey(file);
    case DepCategory::Scoreboard:
        return "SB|" + first + "|" + second;
    case DepCategory::Spacing:
        return "SPACE|" + first;
    }
    return {};
}

std::optional<LatencyKey> LatencyKey::parse(std::string_view text)
{
    const auto parts = split(text);
    for (const auto& p : parts)
        if (p.empty()) return std::nullopt;
    const std::string_view tag = parts.front();
    if (tag == "SPACE" && parts.size() == 2) return spacing(std::string(parts[1]));
    if (tag == "SB" && parts.size() == 3) return scoreboard(std::string(parts[1]), std::string(parts[2]));
    if (parts.size() != 4) return std::nullopt;
    const std::string a(parts[1]), b(parts[2]);
    if (tag == "RAW") {
        for (OperandRole r : kRoles)
            if (parts[3] == operandRoleName(r)) return raw(a, b, r);
        return std::nullopt;
    }
    if (tag == "WAR" || tag == "WAW")
        for (RegFile f : kFiles)
            if (parts[3] == regFileKey(f)) return tag == "WAR" ? war(a, b, f) : waw(a, b, f);
    return std::nullopt;
}

} // namespace sassx
