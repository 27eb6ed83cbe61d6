// sassx-cli variants: random legal variants (or SIP-rule ones) written as byte patches against the
// original cubin, one JSON object per line, so a GPU harness can rebuild the exact cubins the
// rewriter produced without shipping thousands of files.
#include "cli_workspace.h"
#include "commands.h"

#include "core/search/random_variants.h"
#include "core/search/search_space.h"
#include "core/session/annotation_json.h"

#include <fstream>
#include <iostream>

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

} // namespace

int runVariantsCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args = parseArgs(
        raw,
        OptionSpec{{"--count", "--seed", "--rule", "--max-edits", "-o", "--replay"}, {"--memory-only"}}.add(
            workspaceOptionSpec()),
        err);
    if (!err.empty() || args.positional.size() != 1 || args.value("-o").empty())
        return fail(err.empty() ? "usage: sassx-cli variants FILE [--kernel K] [--count N] [--seed S] "
                                  "[--rule sassx|sip|stalls|yield|control|rescheduled|derived] [--max-edits "
                                  "M] [--memory-only] "
                                  "[--replay VARIANTS.jsonl] -o OUT.jsonl"
                                : err);
    const std::string rule = args.value("--rule", "sassx");
    if (rule != "sassx" && rule != "sip" && rule != "stalls" && rule != "yield" && rule != "control" &&
        rule != "rescheduled" && rule != "derived")
        return fail("--rule is sassx, sip, stalls (stall increases only: a control experiment), yield "
                    "(yield-bit flips of ptxas' own order), control (yield flips and reuse edits of ptxas' "
                    "order), rescheduled (moves with derived control codes, "
                    "and yield and reuse edits: the search space) or derived (ptxas' order with minimal "
                    "derived control codes: one variant)");
    int count = 0, maxEdits = 0;
    uint64_t seed = 0;
    try {
        count = std::stoi(args.value("--count", "100"));
        maxEdits = std::stoi(args.value("--max-edits", "30"));
        seed = std::stoull(args.value("--seed", "1"));
    } catch (const std::exception&) {
        return fail("--count, --max-edits and --seed take numbers");
    }
    if (count < 0 || maxEdits < 1) return fail("--count must be >= 0 and --max-edits >= 1");
    std::mt19937_64 rng(seed);
    auto sel = openKernel(args.positional[0], args);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    printNotices(k);
    const LegalityChecker& checker = k.checker();
    const auto& original = k.cubin().bytes();
    std::ofstream out(args.value("-o"));
    if (!out) return fail("cannot write " + args.value("-o"));
    RandomVariantOptions opts;
    opts.maxEdits = maxEdits;
    opts.memoryOnly = args.has("--memory-only");
    opts.onlyRaiseStalls = rule == "stalls";
    opts.yieldOnly = rule == "yield" || rule == "control";
    opts.withReuse = rule == "control";
    // --replay: the variants come from a file (one Variant JSON per line, e.g. reductions of a failing
    // variant made by bench/legality/bisect.py); each is written whether legal or not, with its verdict.
    std::vector<Variant> replay;
    if (args.has("--replay")) {
        std::ifstream in(args.value("--replay"));
        if (!in) return fail("cannot read " + args.value("--replay"));
        std::string text;
        for (int lineNo = 1; std::getline(in, text); ++lineNo) {
            if (text.empty()) continue;
            auto j = nlohmann::json::parse(text, nullptr, false);
            auto v = Variant::fromJson(j);
            if (!v) return fail(args.value("--replay") + ":" + std::to_string(lineNo) + ": " + v.message());
            replay.push_back(*v);
        }
        count = int(replay.size());
    }
    std::optional<search::EditProposer> proposer;
    if (rule == "rescheduled") proposer.emplace(checker, search::SearchSpace::Rescheduled);
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
        } else if (rule == "derived") {
            // ptxas' order, every block's control codes derived with every stall as low as the rules
            // allow (LegalityChecker::reschedule, minimal): the derivation's own test.
            if (v > 0) break;
            std::vector<int> blocks;
            for (const auto& b : k.analysis().cfg.blocks)
                blocks.push_back(b.index);
            if (auto why = checker.reschedule(s, blocks, true))
                return fail("cannot derive control codes: " + *why);
            for (uint32_t p = 0; p < s.order.size(); ++p) {
                const Control& c = s.control[p];
                const Control& o = k.analysis().listing.instructions[p].control;
                if (c.stall != o.stall || c.yield != o.yield || c.reuse != o.reuse)
                    edits.push_back(Edit::control(p, c.stall, c.yield, c.reuse));
            }
            if (edits.empty()) break;
        } else if (rule == "rescheduled") {
            // 1..max-edits proposals of the search space, each a move with the control edits deriving
            // its block's codes, or a yield or reuse edit.
            const int n = std::uniform_int_distribution<int>(1, maxEdits)(rng);
            for (int d = 0; d < n; ++d) {
                auto more = proposer->propose(s, rng, 1);
                edits.insert(edits.end(), more.begin(), more.end());
            }
        } else if (rule == "sip") {
            edits = sipRuleEdits(k.analysis(), rng, std::uniform_int_distribution<int>(1, maxEdits)(rng), s);
        } else {
            edits = randomLegalEdits(checker, rng, opts, s);
        }
        if (edits.empty()) continue;
        auto report = checker.check(s);
        if (replay.empty() && rule != "sip" && !report.legal())
            return fail("internal error: a random legal variant failed the full check: " + report.summary());
        auto bytes = k.write(s);
        if (!bytes) {
            ++refused;
            continue;
        }
        nlohmann::json patches = nlohmann::json::array();
        for (size_t off = 0; off < bytes->size(); off += 16) {
            size_t len = std::min<size_t>(16, bytes->size() - off);
            if (std::equal(bytes->begin() + long(off), bytes->begin() + long(off + len),
                           original.begin() + long(off)))
                continue;
            patches.push_back({off, hexBytes(bytes->data() + off, len)});
        }
        Variant var;
        var.name = replay.empty() ? rule + "-" + std::to_string(v) : replay[size_t(v)].name;
        var.kernel = k.name();
        var.edits = edits;
        nlohmann::json line = var.toJson();
        line["rule"] = rule;
        line["legal"] = report.legal();
        if (!report.legal()) line["hazard"] = report.summary();
        line["patches"] = patches;
        out << line.dump() << "\n";
        ++written;
        legalCount += report.legal();
    }
    std::cerr << "wrote " << written << " " << rule << " variants of " << k.name() << " (" << legalCount
              << " legal by sassx's model"
              << (refused ? ", " + std::to_string(refused) + " refused by the writer" : "") << ") -> "
              << args.value("-o") << "\n";
    return 0;
}
