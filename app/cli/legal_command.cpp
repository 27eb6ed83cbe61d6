// sassx-cli legal FILE [--kernel K] [--all] [--json]: every legal single move of ptxas' order, from the
// workspace's checker (the same one the GUI and searches use, with the cubin writer's walls). When
// nothing can move, the output says why instead of a bare "0".
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
        parseArgs(raw, OptionSpec{{"--control"}, {"--all", "--json"}}.add(workspaceOptionSpec()), err);
    if (!err.empty() || args.positional.size() != 1)
        return fail(err.empty()
                        ? "usage: sassx-cli legal FILE [--kernel K] [--all] [--control yield|reuse|all] "
                          "[--json]"
                        : err);
    const std::string control = args.value("--control");
    if (!control.empty() && control != "yield" && control != "reuse" && control != "all")
        return fail("--control is yield, reuse or all");
    auto sel = openKernel(args.positional[0], args);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    const auto& a = k.analysis();
    const Schedule identity = Schedule::identity(a);
    const bool all = args.has("--all");
    nlohmann::json moves = nlohmann::json::array();
    std::set<uint32_t> movableSet;
    for (auto [from, to] : k.legalMoves(identity, !all)) {
        moves.push_back({{"from", from}, {"to", to}});
        movableSet.insert(from);
    }
    const std::string why = moves.empty() ? whyNothingMoves(k, identity, all) : std::string();
    // Control edits of ptxas' own order (the yield space of searches), from the same rule table the
    // checker judges edits with.
    nlohmann::json controlEdits = nlohmann::json::array();
    if (!control.empty()) {
        const ControlSpace space = control == "yield"   ? ControlSpace::Yield
                                   : control == "reuse" ? ControlSpace::Reuse
                                                        : ControlSpace::YieldAndReuse;
        for (const Edit& e : k.checker().legalControlEdits(identity, space))
            controlEdits.push_back(Variant{"", "", {e}}.toJson().at("edits").at(0));
    }
    if (args.has("--json")) {
        nlohmann::json j{{"kernel", k.name()},
                         {"arch", k.cubin().archName()},
                         {"scope", all ? "all" : "memory"},
                         {"moves", moves},
                         {"notices", k.notices()}};
        if (!why.empty()) j["why_none"] = why;
        if (!control.empty()) j["control_edits"] = controlEdits;
        std::cout << j.dump(1) << "\n";
        return 0;
    }
    std::printf("%s (%s): %zu legal single moves of %zu %s instructions\n", k.name().c_str(),
                k.cubin().archName().c_str(), moves.size(), movableSet.size(),
                all ? "movable" : "movable memory");
    for (const std::string& n : k.notices())
        std::printf("  note: %s\n", n.c_str());
    if (!why.empty()) std::printf("  why none: %s\n", why.c_str());
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
