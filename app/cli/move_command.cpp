#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"
#include "core/session/kernel_edits.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iostream>
#include <memory>

namespace {

struct MoveArgs
{
    std::string file;
    WorkspaceArgs workspace;
    std::vector<std::string> moves, edits; // FROM:TO, INDEX:stall=N|yield=B|reuse=MASK
    std::string pattern;
    bool repair = false, reschedule = false, minimalStalls = false;
    std::string out;
};

// --move and --edit values as (option, value) in command-line order: an edit's index may count on
// the moves before it.
using GivenEdits = std::vector<std::pair<std::string, std::string>>;

bool parseUint(const std::string& s, uint32_t& v)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc{} && p == s.data() + s.size();
}

// "--move 12:9" or "--edit 14:stall=3" / "14:yield=0" / "14:reuse=0x1" / "14:yield=0,reuse=0", in
// command-line order.
sassx::Result<std::vector<sassx::Edit>> parseEdits(const GivenEdits& given)
{
    using namespace sassx;
    std::vector<Edit> edits;
    for (const auto& [name, value] : given) {
        auto colon = value.find(':');
        if (colon == std::string::npos) return makeError("bad " + name + " '" + value + "'");
        uint32_t first = 0;
        if (!parseUint(value.substr(0, colon), first))
            return makeError("bad index in " + name + " '" + value + "'");
        std::string rest = value.substr(colon + 1);
        if (name == "--move") {
            uint32_t to = 0;
            if (!parseUint(rest, to)) return makeError("bad target in --move '" + value + "'");
            edits.push_back(Edit::move(Position(first), Position(to)));
            continue;
        }
        // "yield=0" alone keeps the instruction's reuse flags; "yield=0,reuse=0" clears them in the
        // same edit: the two are distinct edits (docs/legality.md, "Yield bit").
        std::optional<uint8_t> fields[3];
        static const char* const names[3] = {"stall", "yield", "reuse"};
        for (size_t from = 0; from <= rest.size();) {
            size_t comma = rest.find(',', from);
            if (comma == std::string::npos) comma = rest.size();
            const std::string part = rest.substr(from, comma - from);
            from = comma + 1;
            auto eq = part.find('=');
            if (eq == std::string::npos)
                return makeError("bad --edit '" + value +
                                 "' (want INDEX:FIELD=V[,FIELD=V]..., fields stall, yield, reuse)");
            const std::string field = part.substr(0, eq), num = part.substr(eq + 1);
            unsigned long v = 0;
            try {
                size_t used = 0;
                v = std::stoul(num, &used, 0);
                if (used != num.size()) throw std::invalid_argument(num);
            } catch (...) {
                return makeError("bad value in --edit '" + value + "'");
            }
            if (v > 255) return makeError("value out of range in --edit '" + value + "'");
            const auto* at =
                std::find_if(std::begin(names), std::end(names), [&](const char* n) { return field == n; });
            if (at == std::end(names))
                return makeError("unknown control field '" + field + "' (stall, yield, reuse)");
            auto& slot = fields[at - std::begin(names)];
            if (slot) return makeError("field '" + field + "' given twice in --edit '" + value + "'");
            slot = uint8_t(v);
        }
        edits.push_back(Edit::control(Position(first), fields[0], fields[1], fields[2]));
    }
    return edits;
}

int applyPattern(const sassx::KernelWorkspace& k, const std::string& pattern, sassx::Schedule& schedule,
                 std::vector<sassx::Edit>& edits)
{
    using namespace sassx;
    // The named edit on the schedule the explicit edits left, each of its edits judged by the checker.
    const auto named =
        interleaveEdits(k, schedule, interleavePatternFromName(pattern).value_or(InterleaveReuse::Clear));
    for (const auto& e : named.edits) {
        Control& c = schedule.control[schedule.order[e.at]];
        c.yield = *e.yield;
        if (e.reuse) c.reuse = *e.reuse;
    }
    std::cerr << pattern << ": " << named.runs << " FFMA run(s), " << named.edits.size() << " edit(s)";
    if (!named.refused.empty())
        std::cerr << ", " << named.refused.size() << " refused (first: " << named.refused.front() << ")";
    std::cerr << "\n";
    if (named.edits.empty() && edits.empty()) return fail(pattern + ": nothing to edit in this kernel");
    edits.insert(edits.end(), named.edits.begin(), named.edits.end());
    return 0;
}

// Control codes derived for the new order of every block the edits touched (no edits: everywhere).
int deriveControl(const sassx::KernelWorkspace& k, const std::vector<sassx::Edit>& edits, bool minimalStalls,
                  sassx::Schedule& schedule)
{
    const auto& a = k.analysis();
    std::vector<int> blocks;
    for (const auto& b : a.cfg.blocks)
        for (uint32_t n = b.first; n < b.end; ++n) {
            // Blocks never change membership: the block's positions and its instructions are both its
            // original range, and ptxas' order has instruction n at position n.
            const sassx::Position p(n);
            const sassx::InstrId i(n);
            if (edits.empty() || schedule.order[p] != i ||
                schedule.control[i] != a.listing.instructions[n].control) {
                blocks.push_back(b.index); // no edits: derive codes for ptxas' own order everywhere
                                           // (with --minimal-stalls: every stall as low as allowed)
                break;
            }
        }
    if (auto why = k.checker().reschedule(schedule, blocks, minimalStalls)) {
        std::cerr << "sassx-cli: illegal: " << *why << "\n";
        return 2;
    }
    int changed = 0;
    for (sassx::InstrId i : schedule.instructions())
        changed += schedule.control[i] != a.listing.instructions[i.value()].control;
    std::cerr << "derived control codes: " << changed << " instruction(s) differ from ptxas'\n";
    return 0;
}

int runMove(const MoveArgs& args, const GivenEdits& given)
{
    using namespace sassx;
    auto edits = parseEdits(given);
    if (!edits) return fail(edits.message());
    const std::string& pattern = args.pattern;
    if (!pattern.empty() && !interleavePatternFromName(pattern))
        return fail("unknown --pattern '" + pattern + "' (ffma-interleave, ffma-interleave-keep-reuse)");
    if (edits->empty() && !args.reschedule && pattern.empty())
        return fail("nothing to do: give --move, --edit or --pattern (or --reschedule alone: ptxas' order "
                    "with derived control codes)");
    auto sel = openKernel(args.file, args.workspace);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    if (!k.editRefusal().empty()) return fail(k.editRefusal(), 2);
    auto schedule = k.schedule(*edits);
    if (!schedule) return fail(schedule.message(), 2);
    if (!pattern.empty()) {
        if (int code = applyPattern(k, pattern, *schedule, *edits)) return code;
    }
    if (args.repair) k.checker().rescheduler().repairLatencies(*schedule);
    if (args.reschedule) {
        if (int code = deriveControl(k, *edits, args.minimalStalls, *schedule)) return code;
    }
    auto report = k.checker().check(*schedule);
    if (!report.legal()) {
        std::cerr << "sassx-cli: illegal: " << report.hazards.front().message << "\n";
        for (size_t i = 1; i < report.hazards.size() && i < 8; ++i)
            std::cerr << "  also: " << report.hazards[i].message << "\n";
        return 2;
    }
    auto bytes = k.write(*schedule);
    if (!bytes) return fail(bytes.message());
    std::ofstream f(args.out, std::ios::binary);
    if (!f || !f.write(reinterpret_cast<const char*>(bytes->data()), std::streamsize(bytes->size())))
        return fail("cannot write " + args.out);
    std::cerr << "wrote " << args.out << " (" << edits->size() << " edit(s), legal)\n";
    // Reuse flags kept under Y0 are in the word, though nvdisasm prints no marks there: say so, with
    // the measured row that allows each.
    for (InstrId i : schedule->instructions())
        if (auto note = k.checker().controlRules().keptReuseNote(i, schedule->control[i]))
            std::cerr << "note: " << *note << "\n";
    return 0;
}

// CLI11 keeps each option's values apart; its parse order says which option each occurrence was.
GivenEdits editsInOrder(const CLI::App& command, const MoveArgs& args)
{
    GivenEdits out;
    size_t move = 0, edit = 0;
    for (const CLI::Option* o : command.parse_order()) {
        if (o->get_name() == "--move" && move < args.moves.size())
            out.emplace_back("--move", args.moves[move++]);
        if (o->get_name() == "--edit" && edit < args.edits.size())
            out.emplace_back("--edit", args.edits[edit++]);
    }
    return out;
}

} // namespace

CliCommand addMoveCommand(CLI::App& root)
{
    auto args = std::make_shared<MoveArgs>();
    CLI::App* command =
        root.add_subcommand("move", "apply moves and control edits, checked, and write the cubin");
    command->add_option("FILE", args->file, "a cubin or anything `info` reads")->required();
    addWorkspaceOptions(*command, args->workspace);
    addRepeatable(*command, "--move", args->moves, "move the instruction at FROM to TO (repeatable)")
        ->type_name("FROM:TO");
    addRepeatable(*command, "--edit", args->edits,
                  "set control fields of one instruction (repeatable); I:yield=0 keeps its reuse flags, "
                  "I:yield=0,reuse=0 clears them")
        ->type_name("I:stall=N|yield=B|reuse=M[,...]");
    command
        ->add_option("--pattern", args->pattern,
                     "a named edit on top: ffma-interleave (DeepGEMM's: yield flipped, Rb flag cleared) or "
                     "ffma-interleave-keep-reuse (yield flipped, flags kept)")
        ->type_name("NAME");
    command->add_flag("--repair", args->repair, "raise stall counts until every latency bound is met");
    command->add_flag("--reschedule", args->reschedule,
                      "derive control codes for the new order (alone: for ptxas' order)");
    command->add_flag("--minimal-stalls", args->minimalStalls, "--reschedule: every stall as low as allowed");
    command->add_option("-o", args->out, "the cubin to write")->type_name("OUT.cubin")->required();
    return {command, [args, command] { return runMove(*args, editsInOrder(*command, *args)); }};
}
