// sassx-cli variants: random legal variants (or SIP-rule ones) written as byte patches against the
// original cubin, one JSON object per line, so a GPU harness can rebuild the exact cubins the
// rewriter produced without shipping thousands of files.
#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"

#include "core/session/annotation_json.h"
#include "core/session/variant_draws.h"

#include <fstream>
#include <iostream>
#include <memory>

namespace {

std::string hexBytes(const uint8_t* p, size_t n)
{
    static const char* d = "0123456789abcdef";
    std::string s;
    s.reserve(n * 2);
    for (size_t i = 0; i < n; ++i) {
        s += d[p[i] >> 4];
        s += d[p[i] & 15];
    }
    return s;
}

struct VariantsArgs
{
    std::string file;
    WorkspaceArgs workspace;
    int count = 100;
    uint64_t seed = 1;
    std::string rule = "sassx";
    int maxEdits = 30;
    bool memoryOnly = false;
    std::string replay; // a VARIANTS.jsonl whose variants are written instead of random ones
    std::string out;
};

// --replay: one Variant JSON per line (e.g. reductions of a failing variant made by
// bench/legality/bisect.py); each is written whether legal or not, with its verdict.
sassx::Result<std::vector<sassx::Variant>> readReplay(const std::string& path)
{
    using namespace sassx;
    std::ifstream in(path);
    if (!in) return makeError("cannot read " + path);
    std::vector<Variant> replay;
    std::string text;
    for (int lineNo = 1; std::getline(in, text); ++lineNo) {
        if (text.empty()) continue;
        auto j = nlohmann::json::parse(text, nullptr, false);
        auto v = Variant::fromJson(j);
        if (!v) return makeError(path + ":" + std::to_string(lineNo) + ": " + v.message());
        replay.push_back(*v);
    }
    return replay;
}

// The variant's bytes as 16-byte patches against the original cubin.
nlohmann::json patchesAgainst(const std::vector<uint8_t>& bytes, const std::vector<uint8_t>& original)
{
    nlohmann::json patches = nlohmann::json::array();
    for (size_t off = 0; off < bytes.size(); off += 16) {
        size_t len = std::min<size_t>(16, bytes.size() - off);
        if (std::equal(bytes.begin() + long(off), bytes.begin() + long(off + len),
                       original.begin() + long(off)))
            continue;
        patches.push_back({off, hexBytes(bytes.data() + off, len)});
    }
    return patches;
}

int runVariants(const VariantsArgs& args)
{
    using namespace sassx;
    if (args.count < 0 || args.maxEdits < 1) return fail("--count must be >= 0 and --max-edits >= 1");
    std::mt19937_64 rng(args.seed);
    auto sel = openKernel(args.file, args.workspace);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    if (!k.editRefusal().empty()) return fail(k.editRefusal(), 2);
    printNotices(k);
    const LegalityChecker& checker = k.checker();
    std::ofstream out(args.out);
    if (!out) return fail("cannot write " + args.out);
    std::vector<Variant> replay;
    if (!args.replay.empty()) {
        auto read = readReplay(args.replay);
        if (!read) return fail(read.message());
        replay = std::move(*read);
    }
    const std::string& rule = args.rule;
    const VariantRule parsedRule = parseVariantRule(rule).value_or(VariantRule::Sassx); // oneOf checked it
    VariantDrawer drawer(sel->kernel, {parsedRule, args.maxEdits, args.memoryOnly});
    const int count = args.replay.empty() ? args.count : int(replay.size());
    int written = 0, legalCount = 0, refused = 0;
    // Random rules: draw until `count` variants are written (a draw can find no legal edit at all).
    const int draws = replay.empty() ? count * 4 : count;
    for (int v = 0; v < draws && written < count; ++v) {
        Schedule s = Schedule::identity(k.analysis());
        std::vector<Edit> edits;
        if (!replay.empty()) {
            // Same reuse fix-up after every move as when the variant was made, so the bytes match.
            auto applied = k.schedule(replay[size_t(v)].edits);
            if (!applied) return fail(replay[size_t(v)].name + ": " + applied.message());
            s = std::move(*applied);
            edits = replay[size_t(v)].edits;
        } else {
            if (parsedRule == VariantRule::Derived && v > 0) break;
            auto drawn = drawer.draw(rng, s);
            if (!drawn) return fail(drawn.message());
            edits = std::move(*drawn);
        }
        if (edits.empty()) {
            if (parsedRule == VariantRule::Derived) break;
            continue;
        }
        auto report = checker.check(s);
        if (replay.empty() && drawer.checked() && !report.legal())
            return fail("internal error: a random legal variant failed the full check: " + report.summary());
        auto bytes = k.write(s);
        if (!bytes) {
            ++refused;
            continue;
        }
        Variant var{replay.empty() ? rule + "-" + std::to_string(v) : replay[size_t(v)].name, k.name(),
                    edits};
        nlohmann::json line = var.toJson();
        line["rule"] = rule;
        line["legal"] = report.legal();
        if (!report.legal()) line["hazard"] = report.summary();
        line["patches"] = patchesAgainst(*bytes, k.cubin().bytes());
        out << line.dump() << "\n";
        ++written;
        legalCount += report.legal();
    }
    std::cerr << "wrote " << written << " " << rule << " variants of " << k.name() << " (" << legalCount
              << " legal by sassx's model"
              << (refused ? ", " + std::to_string(refused) + " refused by the writer" : "") << ") -> "
              << args.out << "\n";
    return 0;
}

} // namespace

CliCommand addVariantsCommand(CLI::App& root)
{
    auto args = std::make_shared<VariantsArgs>();
    CLI::App* command = root.add_subcommand(
        "variants", "random legal variants (or rule-made ones) as byte patches, JSON lines");
    command->add_option("FILE", args->file, "a cubin or anything `info` reads")->required();
    addWorkspaceOptions(*command, args->workspace);
    command->add_option("--count", args->count, "variants to write")->capture_default_str();
    command->add_option("--seed", args->seed, "random seed")->capture_default_str();
    command
        ->add_option(
            "--rule", args->rule,
            "sassx: random legal edits, sip: the SIP paper's rule, stalls: stall raises only, yield/control: "
            "yield flips (and reuse edits), rescheduled: the search space, derived: minimal derived codes")
        ->check(oneOf(sassx::variantRuleNames()))
        ->capture_default_str();
    command->add_option("--max-edits", args->maxEdits, "edits per variant, at most")->capture_default_str();
    command->add_flag("--memory-only", args->memoryOnly, "move memory instructions only");
    command
        ->add_option("--replay", args->replay,
                     "write these variants (one JSON per line) instead, each with its verdict")
        ->type_name("VARIANTS.jsonl");
    command->add_option("-o", args->out, "the JSON lines to write")->type_name("OUT.jsonl")->required();
    return {command, [args] { return runVariants(*args); }};
}
