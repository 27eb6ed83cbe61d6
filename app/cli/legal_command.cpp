// sassx-cli legal FILE [--kernel K] [--all] [--reschedule [--max-distance N]] [--json]: every legal
// single move of ptxas' order, from the workspace's checker (the same one the GUI and searches use,
// with the cubin writer's walls). With --reschedule a move is legal when its order is, with control
// codes derived for it (LegalityChecker::reschedule). When nothing can move, the output says why
// instead of a bare "0".
#include "cli_workspace.h"
#include "commands.h"

#include "core/rewrite/control_rules.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <set>

namespace {

const char* ruleName(sassx::HazardKind kind)
{
    using sassx::HazardKind;
    switch (kind) {
    case HazardKind::Register:
        return "register order";
    case HazardKind::Scoreboard:
        return "scoreboard waits";
    case HazardKind::ImplicitCoverage:
        return "implicit scoreboard coverage";
    case HazardKind::Latency:
        return "fixed-latency distances";
    case HazardKind::MemoryOrder:
        return "memory order";
    case HazardKind::IssueSpacing:
        return "memory issue spacing";
    case HazardKind::Wall:
        return "walls";
    case HazardKind::Pinned:
        return "pinned instructions";
    case HazardKind::Structure:
        return "block boundaries";
    case HazardKind::Reuse:
        return "operand-reuse flags";
    }
    return "other rules";
}

// The rule that blocks most candidates, how many it blocks and one example in full: one line a user
// can act on ("9 of 10 memory instructions are held by operand-reuse flags, e.g. …").
std::string whyNothingMoves(const sassx::KernelWorkspace& k, const sassx::Schedule& identity, bool all)
{
    if (!k.immovableReason().empty()) return k.immovableReason();
    const auto& insts = k.analysis().listing.instructions;
    std::map<sassx::HazardKind, std::pair<int, std::string>> byRule;
    int candidates = 0;
    for (uint32_t p = 0; p < identity.order.size(); ++p) {
        if (!all && !insts[identity.order[p]].isMemory()) continue;
        ++candidates;
        if (auto h = k.whyImmovable(identity, p)) {
            auto& [count, example] = byRule[h->kind];
            if (count++ == 0) example = h->message;
        }
    }
    if (candidates == 0)
        return all ? "the kernel has no instructions" : "the kernel has no memory instructions";
    auto best = byRule.end();
    for (auto it = byRule.begin(); it != byRule.end(); ++it)
        if (best == byRule.end() || it->second.first > best->second.first) best = it;
    if (best == byRule.end()) return "every single step breaks a rule further away";
    return std::to_string(best->second.first) + " of " + std::to_string(candidates) +
           (all ? " instructions" : " memory instructions") + " are held by " + ruleName(best->first) +
           ", e.g. " + best->second.second;
}

} // namespace

int runLegalCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args =
        parseArgs(raw,
                  OptionSpec{{"--control", "--max-distance"}, {"--all", "--json", "--reschedule"}}.add(
                      workspaceOptionSpec()),
                  err);
    if (!err.empty() || args.positional.size() != 1)
        return fail(
            err.empty()
                ? "usage: sassx-cli legal FILE [--kernel K] [--all] [--control yield|reuse|stall|all] "
                  "[--reschedule [--max-distance N]] [--json]"
                : err);
    const std::string control = args.value("--control");
    if (!control.empty() && control != "yield" && control != "reuse" && control != "stall" &&
        control != "all")
        return fail("--control is yield, reuse, stall (decreases) or all");
    auto sel = openKernel(args.positional[0], args);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    const auto& a = k.analysis();
    const Schedule identity = Schedule::identity(a);
    const bool all = args.has("--all");
    nlohmann::json moves = nlohmann::json::array();
    std::set<uint32_t> movableSet;
    const bool reschedule = args.has("--reschedule");
    int maxDistance = 32;
    if (!args.value("--max-distance").empty()) {
        try {
            maxDistance = std::stoi(args.value("--max-distance"));
        } catch (...) {
            maxDistance = 0;
        }
        if (maxDistance < 1) return fail("--max-distance is a positive number of positions");
    }
    std::string rescheduleWhy;
    std::map<std::string, int> refusalCount; // --reschedule: order targets refused, by the refusal's text
    if (reschedule) {
        for (uint32_t p = 0; p < identity.order.size(); ++p) {
            if (!all && !a.listing.instructions[p].isMemory()) continue;
            std::vector<std::string> refusals;
            for (auto& [to, s] : k.checker().rescheduledTargets(identity, p, maxDistance, &refusals)) {
                nlohmann::json changed = nlohmann::json::array();
                for (uint32_t i = 0; i < s.control.size(); ++i)
                    if (s.control[i] != a.listing.instructions[i].control) changed.push_back(i);
                moves.push_back({{"from", p}, {"to", to}, {"control_changed", changed}});
                movableSet.insert(p);
            }
            for (const auto& r : refusals)
                ++refusalCount[r];
        }
        int most = 0;
        for (const auto& [text, n] : refusalCount)
            if (n > most) {
                most = n;
                rescheduleWhy = text + " (" + std::to_string(n) + " order targets refused so)";
            }
    } else {
        for (auto [from, to] : k.legalMoves(identity, !all)) {
            moves.push_back({{"from", from}, {"to", to}});
            movableSet.insert(from);
        }
    }
    const std::string why = moves.empty() ? whyNothingMoves(k, identity, all) : std::string();
    // Control edits of ptxas' own order (the yield space of searches), from the same rule table the
    // checker judges edits with.
    nlohmann::json controlEdits = nlohmann::json::array();
    if (!control.empty()) {
        const ControlSpace space = control == "yield"   ? ControlSpace::Yield
                                   : control == "reuse" ? ControlSpace::Reuse
                                   : control == "stall" ? ControlSpace::Stall
                                                        : ControlSpace::All;
        for (const Edit& e : k.checker().legalControlEdits(identity, space))
            controlEdits.push_back(Variant{"", "", {e}}.toJson().at("edits").at(0));
    }
    if (args.has("--json")) {
        nlohmann::json j{{"kernel", k.name()},
                         {"arch", k.cubin().archName()},
                         {"scope", all ? "all" : "memory"},
                         {"rescheduled", reschedule},
                         {"moves", moves},
                         {"notices", k.notices()}};
        if (!why.empty()) j["why_none"] = why;
        if (!rescheduleWhy.empty()) j["most_common_refusal"] = rescheduleWhy;
        if (reschedule) j["refusals"] = refusalCount; // what holds the rest of the space, by rule
        if (!control.empty()) j["control_edits"] = controlEdits;
        std::cout << j.dump(1) << "\n";
        return 0;
    }
    std::printf("%s (%s): %zu legal single moves%s of %zu %s instructions\n", k.name().c_str(),
                k.cubin().archName().c_str(), moves.size(), reschedule ? " with derived control codes" : "",
                movableSet.size(), all ? "movable" : "movable memory");
    for (const std::string& n : k.notices())
        std::printf("  note: %s\n", n.c_str());
    if (!why.empty()) std::printf("  why none: %s\n", why.c_str());
    if (!rescheduleWhy.empty()) std::printf("  most common refusal: %s\n", rescheduleWhy.c_str());
    for (const auto& m : moves) {
        uint32_t f = m["from"], t = m["to"];
        std::printf("  %5u -> %5u  %s\n", f, t, a.listing.instructions[f].text().c_str());
    }
    if (!control.empty()) {
        std::printf("%zu legal %s control edit(s) of ptxas' order\n", controlEdits.size(), control.c_str());
        for (const auto& e : controlEdits) {
            const uint32_t at = e["control"]["at"];
            std::printf("  %5u %-22s %s\n", at, e["control"].dump().c_str(),
                        a.listing.instructions[at].text().c_str());
        }
    }
    return 0;
}
