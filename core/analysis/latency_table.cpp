#include "core/analysis/latency_table.h"

#include "core/common/paths.h"
#include "core/sass/semantics.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace sassx {

Result<LatencyTable> LatencyTable::fromJson(const std::string& text)
{
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return makeError("latency table is not a JSON object");
    LatencyTable t;
    t.m_arch = j.value("arch", "");
    t.m_source = j.value("source", "");
    t.m_maxFixed = j.value("max_fixed_latency", 15);
    if (j.contains("predicate_to_guard")) t.m_predicateToGuard = j["predicate_to_guard"].get<int>();
    if (auto it = j.find("opcode_keys"); it != j.end() && it->is_object())
        for (auto& [k, v] : it->items())
            t.m_opcodeKeys[k] = v.get<std::string>();
    if (auto it = j.find("producer_default"); it != j.end() && it->is_object())
        for (auto& [k, v] : it->items())
            t.m_classDefault[k] = v.get<int>();
    if (auto it = j.find("pairs"); it != j.end() && it->is_array())
        for (auto& p : *it) {
            if (!p.contains("from") || !p.contains("to") || !p.contains("cycles"))
                return makeError("latency table pair needs from, to and cycles");
            t.m_pairs[{p["from"].get<std::string>(), p["to"].get<std::string>()}] = p["cycles"].get<int>();
        }
    return t;
}

Result<LatencyTable> LatencyTable::load(int sm)
{
    auto path = resourcesDir() / "latency" / ("sm_" + std::to_string(sm) + ".json");
    std::ifstream in(path);
    if (!in)
        return makeError("no latency table for sm_" + std::to_string(sm) + " (looked for " + path.string() +
                         ")");
    std::stringstream ss;
    ss << in.rdbuf();
    auto t = fromJson(ss.str());
    if (!t) return makeError(path.string() + ": " + t.message());
    return t;
}

std::string LatencyTable::keyOf(const Instruction& ins) const
{
    // Most specific first: "IMAD.WIDE" (base + first modifier), then the base opcode, then the class.
    if (!ins.modifiers.empty()) {
        auto it = m_opcodeKeys.find(ins.baseOpcode + "." + ins.modifiers[0]);
        if (it != m_opcodeKeys.end()) return it->second;
    }
    auto it = m_opcodeKeys.find(ins.baseOpcode);
    if (it != m_opcodeKeys.end()) return it->second;
    return instrClassName(ins.cls);
}

std::optional<int> LatencyTable::rawLatency(const Instruction& producer, const Instruction& consumer,
                                            const Reg& reg, bool asGuard) const
{
    if (producer.variableLatency || producer.opaque)
        return std::nullopt; // guarded by scoreboards, not distances
    if (asGuard && (reg.file == RegFile::P || reg.file == RegFile::UP) && m_predicateToGuard)
        return *m_predicateToGuard;
    std::string pk = keyOf(producer), ck = keyOf(consumer);
    if (auto it = m_pairs.find({pk, ck}); it != m_pairs.end()) return it->second;
    if (auto it = m_pairs.find({pk, "*"}); it != m_pairs.end()) return it->second;
    if (auto it = m_classDefault.find(pk); it != m_classDefault.end()) return it->second;
    return std::nullopt;
}

} // namespace sassx
