#include "commands.h"
#include "kernel_selection.h"

#include "core/rewrite/legality.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <set>

int runLegalCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args = parseArgs(raw, {"--kernel", "--arch"}, err);
    if (!err.empty() || args.positional.size() != 1)
        return fail(err.empty() ? "usage: sassx-cli legal FILE [--kernel K] [--all] [--json]" : err);
    auto sel = selectKernel(args.positional[0], args.value("--kernel"), args.value("--arch", "sm_90"));
    if (!sel) return fail(sel.message());
    const auto& a = *sel->analysis;
    PatchOptions patchOptions;
    patchOptions.keepStaleLineInfo = args.has("--keep-stale-line-info");
    LegalityChecker checker = makeChecker(*sel, patchOptions);
    const Schedule identity = Schedule::identity(a);
    const bool all = args.has("--all");
    nlohmann::json moves = nlohmann::json::array();
    std::set<uint32_t> movableSet;
    for (auto [from, to] : checker.legalMoves(identity, !all)) {
        moves.push_back({{"from", from}, {"to", to}});
        movableSet.insert(from);
    }
    const size_t movable = movableSet.size();
    if (args.has("--json")) {
        std::cout << nlohmann::json{{"kernel", sel->kernel},
                                    {"arch", sel->cubin().archName()},
                                    {"scope", all ? "all" : "memory"},
                                    {"moves", moves}}
                         .dump(1)
                  << "\n";
        return 0;
    }
    std::printf("%s (%s): %zu legal single moves of %zu %s instructions\n", sel->kernel.c_str(),
                sel->cubin().archName().c_str(), moves.size(), movable, all ? "movable" : "movable memory");
    for (const auto& m : moves) {
        uint32_t f = m["from"], t = m["to"];
        std::printf("  %5u -> %5u  %s\n", f, t, a.listing.instructions[f].text().c_str());
    }
    return 0;
}
