#include "core/analysis/latency_table.h"

#include "core/common/paths.h"
#include "core/sass/semantics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace sassx {

Result<LatencyTable> LatencyTable::fromJson(const std::string& text)
{
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return makeError("latency table is not a JSON object");
    LatencyTable t;
    t.m_arch = j.value("arch", "");
    t.m_source = j.value("source", "");
    t.m_label = j.value("label", "");
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
    if (auto it = j.find("measured"); it != j.end() && it->is_object()) {
        t.m_measuredSource = it->value("source", "");
        if (auto c = it->find("cells"); c != it->end() && c->is_object())
            for (auto& [k, v] : c->items()) {
                if (!v.is_number_integer() || v.get<int>() < 1 || v.get<int>() > 15)
                    return makeError("measured cell " + k + " is not a stall count 1-15");
                auto key = LatencyKey::parse(k);
                if (!key) return makeError("measured cell " + k + " is not a dependency key");
                t.m_measured[std::move(*key)] = v.get<int>();
            }
    }
    return t;
}

std::optional<int> LatencyTable::measuredCell(const LatencyKey& key) const
{
    auto it = m_measured.find(key);
    if (it == m_measured.end()) return std::nullopt;
    return it->second;
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

std::string latencyOpcodeKey(const Instruction& ins)
{
    static const std::set<std::string> kPipeModifiers = {"WIDE", "HI", "MOV", "SHL", "IADD", "X", "MMA"};
    if (!ins.modifiers.empty() && kPipeModifiers.count(ins.modifiers[0]) &&
        (ins.op == Op::IMAD || ins.op == Op::HFMA2))
        return ins.baseOpcode + "." + ins.modifiers[0];
    return ins.baseOpcode;
}

namespace {

bool covers(const Reg& reg, const std::optional<Reg>& base, int width)
{
    return base && base->file == reg.file && reg.index >= base->index && reg.index < base->index + width;
}

bool contains(const RegList& regs, const Reg& r)
{
    return std::find(regs.begin(), regs.end(), r) != regs.end();
}

} // namespace

OperandRole operandRole(const Instruction& reader, const Reg& reg)
{
    if (reader.guard && *reader.guard == reg) return OperandRole::Guard;
    for (const auto& op : reader.operands) {
        if (op.kind != Operand::Kind::Memory) continue;
        if (covers(reg, op.memBase, op.memBaseWidth) || covers(reg, op.memUniform, op.memUniformWidth) ||
            covers(reg, op.memDescriptor, 2))
            return OperandRole::Addr;
    }
    if (reader.isMemory() && reader.cls != InstrClass::LoadConst) return OperandRole::Data;
    if (reg.file == RegFile::P || reg.file == RegFile::UP) return OperandRole::Pred;
    if (reg.file == RegFile::UR && reader.cls != InstrClass::Uniform) return OperandRole::Ur;
    return OperandRole::Reg;
}

std::vector<LatencyKey> latencyPairKeys(const Instruction& first, const Instruction& second)
{
    std::vector<LatencyKey> keys;
    if (first.opaque || second.opaque) return keys;
    const std::string a = latencyOpcodeKey(first), b = latencyOpcodeKey(second);
    std::set<LatencyKey> seen;
    auto add = [&](LatencyKey k) {
        if (seen.insert(k).second) keys.push_back(std::move(k));
    };
    if (!first.variableLatency) {
        for (const auto& r : first.defs)
            if (contains(second.uses, r)) add(LatencyKey::raw(a, b, operandRole(second, r)));
        for (const auto& r : first.uses)
            if (contains(second.defs, r) && !contains(first.defs, r) && !second.variableLatency)
                add(LatencyKey::war(a, b, r.file));
        for (const auto& r : first.defs)
            if (contains(second.defs, r) && !second.variableLatency) add(LatencyKey::waw(a, b, r.file));
    } else if (first.control.wbar < 6 && (second.control.wait >> first.control.wbar) & 1) {
        for (const auto& r : first.defs)
            if (contains(second.uses, r)) {
                add(LatencyKey::scoreboard(a, b));
                break;
            }
    }
    if (first.isMemory() && first.baseOpcode == second.baseOpcode) add(LatencyKey::spacing(first.baseOpcode));
    return keys;
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
