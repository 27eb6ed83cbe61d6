#include "core/rewrite/variant.h"

#include "core/analysis/kernel_analysis.h"

#include <algorithm>

namespace sassx {

Edit Edit::move(Position from, Position to)
{
    Edit e;
    e.kind = Kind::Move;
    e.from = from;
    e.to = to;
    return e;
}

Edit Edit::control(Position at, std::optional<uint8_t> stall, std::optional<uint8_t> yield,
                   std::optional<uint8_t> reuse)
{
    Edit e;
    e.kind = Kind::Control;
    e.at = at;
    e.stall = stall;
    e.yield = yield;
    e.reuse = reuse;
    return e;
}

std::string Edit::describe() const
{
    if (kind == Kind::Move) return "move " + to_string(from) + " to " + to_string(to);
    std::string s = "control of " + to_string(at) + ":";
    if (stall) s += " stall=" + std::to_string(*stall);
    if (yield) s += " yield=" + std::to_string(*yield);
    if (reuse) s += " reuse=" + std::to_string(*reuse);
    return s;
}

nlohmann::json Variant::toJson() const
{
    nlohmann::json edits = nlohmann::json::array();
    for (const auto& e : this->edits) {
        if (e.kind == Edit::Kind::Move) {
            edits.push_back({{"move", {e.from, e.to}}});
        } else {
            nlohmann::json c{{"at", e.at}};
            if (e.stall) c["stall"] = *e.stall;
            if (e.yield) c["yield"] = *e.yield;
            if (e.reuse) c["reuse"] = *e.reuse;
            edits.push_back({{"control", c}});
        }
    }
    return {{"name", name}, {"kernel", kernel}, {"edits", edits}};
}

Result<Variant> Variant::fromJson(const nlohmann::json& j)
{
    if (!j.is_object()) return makeError("variant is not a JSON object");
    Variant v;
    v.name = j.value("name", "");
    v.kernel = j.value("kernel", "");
    auto edits = j.find("edits");
    if (edits == j.end() || !edits->is_array())
        return makeError("variant '" + v.name + "' has no edits array");
    for (const auto& e : *edits) {
        if (e.contains("move") && e["move"].is_array() && e["move"].size() == 2 &&
            e["move"][0].is_number_unsigned() && e["move"][1].is_number_unsigned()) {
            v.edits.push_back(Edit::move(e["move"][0].get<Position>(), e["move"][1].get<Position>()));
        } else if (e.contains("control") && e["control"].is_object() && e["control"].contains("at")) {
            const auto& c = e["control"];
            auto opt = [&](const char* k) -> std::optional<uint8_t> {
                if (!c.contains(k) || !c[k].is_number_unsigned() || c[k].get<unsigned>() > 255)
                    return std::nullopt;
                return uint8_t(c[k].get<unsigned>());
            };
            v.edits.push_back(
                Edit::control(c["at"].get<Position>(), opt("stall"), opt("yield"), opt("reuse")));
        } else {
            return makeError("variant '" + v.name +
                             "': an edit is neither {move:[from,to]} nor {control:{at,…}}");
        }
    }
    return v;
}

Schedule Schedule::identity(const KernelAnalysis& a)
{
    Schedule s;
    const auto& insts = a.listing.instructions;
    s.order.resize(insts.size());
    s.control.resize(insts.size());
    // The identity schedule is the one place where a position and an instruction share a number.
    for (uint32_t i = 0; i < insts.size(); ++i) {
        s.order[Position(i)] = InstrId(i);
        s.control[InstrId(i)] = insts[i].control;
    }
    return s;
}

IndexVector<InstrId, Position> Schedule::positionOf() const
{
    IndexVector<InstrId, Position> pos(order.size());
    for (Position p : positions())
        pos[order[p]] = p;
    return pos;
}

bool Schedule::isIdentity(const KernelAnalysis& a) const
{
    for (Position p : positions()) {
        const InstrId i = order[p];
        if (i.value() != p.value() || !(control[i] == a.listing.instructions[i.value()].control))
            return false;
    }
    return true;
}

bool Schedule::reorders() const
{
    for (Position p : positions())
        if (order[p].value() != p.value()) return true;
    return false;
}

void Schedule::move(Position from, Position to)
{
    if (from < to)
        std::rotate(order.iter(from), order.iter(from + 1), order.iter(to + 1));
    else if (from > to)
        std::rotate(order.iter(to), order.iter(from), order.iter(from + 1));
}

Result<Schedule> applyEdits(const KernelAnalysis& a, const std::vector<Edit>& edits,
                            const std::function<void(Schedule&)>& afterMove)
{
    Schedule s = Schedule::identity(a);
    const uint32_t n = uint32_t(s.order.size());
    int k = 0;
    for (const auto& e : edits) {
        ++k;
        std::string where = "edit " + std::to_string(k) + " (" + e.describe() + "): ";
        if (e.kind == Edit::Kind::Move) {
            if (e.from.value() >= n || e.to.value() >= n)
                return makeError(where + "position out of range (kernel has " + std::to_string(n) +
                                 " instructions)");
            // Blocks never change membership, so the block of a position is the original block there.
            int bf = a.cfg.blockOf[e.from.value()], bt = a.cfg.blockOf[e.to.value()];
            if (bf != bt)
                return makeError(where + "moves an instruction out of its basic block (block " +
                                 std::to_string(bf) + " to block " + std::to_string(bt) +
                                 "); block starts must stay fixed");
            s.move(e.from, e.to);
            if (afterMove) afterMove(s);
        } else {
            if (e.at.value() >= n) return makeError(where + "position out of range");
            Control& c = s.control[s.order[e.at]];
            if (e.stall) {
                if (*e.stall > 15) return makeError(where + "stall must be 0..15");
                c.stall = *e.stall;
            }
            if (e.yield) {
                if (*e.yield > 1) return makeError(where + "yield must be 0 or 1");
                c.yield = *e.yield;
            }
            if (e.reuse) {
                if (*e.reuse > 15) return makeError(where + "reuse must be a 4-bit mask");
                c.reuse = *e.reuse;
            }
        }
    }
    return s;
}

} // namespace sassx
