// sassx-cli legal FILE [--kernel K] [--all] [--reschedule [--max-distance N]] [--json]: every legal
// single move of ptxas' order, from the workspace's checker (the same one the GUI and searches use,
// with the cubin writer's walls). With --reschedule a move is legal when its order is, with control
// codes derived for it (LegalityChecker::reschedule). When nothing can move, the output says why
// instead of a bare "0".
#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"

#include "core/session/kernel_edits.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
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
    for (sassx::Position p : identity.positions()) {
        if (!all && !insts[identity.order[p].value()].isMemory()) continue;
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

struct LegalArgs
{
    std::string file;
    WorkspaceArgs workspace;
    bool all = false;
    std::string control; // empty: no control edits
    bool reschedule = false;
    int maxDistance = 32;
    bool json = false;
};

// The legal single moves of ptxas' order, and with --reschedule what refused the rest.
struct LegalMoves
{
    nlohmann::json moves = nlohmann::json::array();
    std::set<sassx::Position> movable;
    std::map<std::string, int> refusalCount; // --reschedule: order targets refused, by the refusal's text
    std::string mostCommonRefusal;
};

LegalMoves plainMoves(const sassx::KernelWorkspace& k, const sassx::Schedule& identity, bool all)
{
    LegalMoves out;
    for (auto [from, to] : k.legalMoves(identity, !all)) {
        out.moves.push_back({{"from", from}, {"to", to}});
        out.movable.insert(from);
    }
    return out;
}

LegalMoves rescheduledMoves(const sassx::KernelWorkspace& k, const sassx::Schedule& identity, bool all,
                            int maxDistance)
{
    const auto& a = k.analysis();
    LegalMoves out;
    for (sassx::Position p : identity.positions()) {
        if (!all && !a.listing.instructions[identity.order[p].value()].isMemory()) continue;
        std::vector<std::string> refusals;
        for (auto& [to, s] :
             k.checker().rescheduler().rescheduledTargets(identity, p, maxDistance, &refusals)) {
            nlohmann::json changed = nlohmann::json::array();
            for (sassx::InstrId i : s.instructions())
                if (s.control[i] != a.listing.instructions[i.value()].control) changed.push_back(i);
            out.moves.push_back({{"from", p}, {"to", to}, {"control_changed", changed}});
            out.movable.insert(p);
        }
        for (const auto& r : refusals)
            ++out.refusalCount[r];
    }
    int most = 0;
    for (const auto& [text, n] : out.refusalCount)
        if (n > most) {
            most = n;
            out.mostCommonRefusal = text + " (" + std::to_string(n) + " order targets refused so)";
        }
    return out;
}

// Control edits of ptxas' own order (the yield space of searches), from the same rule table the checker
// judges edits with.
nlohmann::json controlEdits(const sassx::KernelWorkspace& k, const sassx::Schedule& identity,
                            const std::string& control)
{
    nlohmann::json edits = nlohmann::json::array();
    if (control.empty()) return edits;
    // The option's check admits only the table's names.
    const sassx::ControlSpace space = sassx::parseControlSpace(control).value_or(sassx::ControlSpace::All);
    for (const sassx::ControlEditOption& option : sassx::legalControlEdits(k, identity, space)) {
        nlohmann::json j = sassx::Variant{"", "", {option.edit}}.toJson().at("edits").at(0);
        if (option.note) j["note"] = *option.note;
        edits.push_back(std::move(j));
    }
    return edits;
}

void printText(const sassx::KernelWorkspace& k, const LegalArgs& args, const LegalMoves& legal,
               const std::string& why, const nlohmann::json& edits)
{
    const auto& a = k.analysis();
    std::printf("%s (%s): %zu legal single moves%s of %zu %s instructions\n", k.name().c_str(),
                k.cubin().archName().c_str(), legal.moves.size(),
                args.reschedule ? " with derived control codes" : "", legal.movable.size(),
                args.all ? "movable" : "movable memory");
    for (const std::string& n : k.notices())
        std::printf("  note: %s\n", n.c_str());
    if (!why.empty()) std::printf("  why none: %s\n", why.c_str());
    if (!legal.mostCommonRefusal.empty())
        std::printf("  most common refusal: %s\n", legal.mostCommonRefusal.c_str());
    // Positions of ptxas' order: the instruction at position f is the listing's instruction f.
    for (const auto& m : legal.moves) {
        uint32_t f = m["from"], t = m["to"];
        std::printf("  %5u -> %5u  %s\n", f, t, a.listing.instructions[f].text().c_str());
    }
    if (args.control.empty()) return;
    std::printf("%zu legal %s control edit(s) of ptxas' order\n", edits.size(), args.control.c_str());
    for (const auto& e : edits) {
        const uint32_t at = e["control"]["at"];
        std::printf("  %5u %-22s %s\n", at, e["control"].dump().c_str(),
                    a.listing.instructions[at].text().c_str());
        if (e.contains("note")) std::printf("        %s\n", e["note"].get<std::string>().c_str());
    }
}

int runLegal(const LegalArgs& args)
{
    using namespace sassx;
    if (args.maxDistance < 1) return fail("--max-distance is a positive number of positions");
    auto sel = openKernel(args.file, args.workspace);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    const Schedule identity = Schedule::identity(k.analysis());
    const LegalMoves legal = args.reschedule ? rescheduledMoves(k, identity, args.all, args.maxDistance)
                                             : plainMoves(k, identity, args.all);
    const std::string why = legal.moves.empty() ? whyNothingMoves(k, identity, args.all) : std::string();
    const nlohmann::json edits = controlEdits(k, identity, args.control);
    if (!args.json) {
        printText(k, args, legal, why, edits);
        return 0;
    }
    nlohmann::json j{{"kernel", k.name()},
                     {"arch", k.cubin().archName()},
                     {"scope", args.all ? "all" : "memory"},
                     {"rescheduled", args.reschedule},
                     {"moves", legal.moves},
                     {"notices", k.notices()}};
    if (!why.empty()) j["why_none"] = why;
    if (!legal.mostCommonRefusal.empty()) j["most_common_refusal"] = legal.mostCommonRefusal;
    if (args.reschedule) j["refusals"] = legal.refusalCount; // what holds the rest of the space, by rule
    if (!args.control.empty()) j["control_edits"] = edits;
    std::cout << j.dump(1) << "\n";
    return 0;
}

} // namespace

CliCommand addLegalCommand(CLI::App& root)
{
    auto args = std::make_shared<LegalArgs>();
    CLI::App* command =
        root.add_subcommand("legal", "every legal single move of ptxas' order, and control edits");
    command->add_option("FILE", args->file, "a cubin or anything `info` reads")->required();
    addWorkspaceOptions(*command, args->workspace);
    command->add_flag("--all", args->all, "every instruction, not only memory instructions");
    command
        ->add_option(
            "--control", args->control,
            "also the legal control edits of ptxas' order: yield flips, reuse flags, stall decreases "
            "or all")
        ->check(oneOf(sassx::enumNameList(sassx::kControlSpaceNames)));
    command->add_flag("--reschedule", args->reschedule,
                      "moves whose order is legal with control codes derived for it");
    command
        ->add_option("--max-distance", args->maxDistance, "--reschedule: how far a move may go, in positions")
        ->capture_default_str();
    command->add_flag("--json", args->json, "JSON instead of text");
    return {command, [args] { return runLegal(*args); }};
}
