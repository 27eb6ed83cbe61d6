// sassx-cli search: a background-free search on one kernel (core/session/search_run.h). Prints a
// progress bar on a terminal (JSON lines with --json), then the best speed-up and where the report,
// the diff and the tuned cubin went.
#include "cli_workspace.h"
#include "commands.h"

#include "core/search/ppo_config.h"
#include "core/session/search_run.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace {

using namespace sassx;

std::atomic_bool g_stop{false};

void onSignal(int)
{
    g_stop = true; // the run stops after the evaluation in flight and checkpoints
}

const char* kUsage =
    "usage: sassx-cli search SPEC.json [--algo climb|anneal|greedy|random|listsched|ppo] [--preset sip] "
    "[--margin F] "
    "[--ppo-config FILE] [--policy FILE] "
    "[--space mem|all|yield|all+control|rescheduled] [--budget-evals N] [--budget-time 10m] [--backend "
    "auto|gpu|estimate] "
    "[--gpus LIST] [--seed S] [--guide uniform|stalls] [--stalls FILE] [--sample-best] [--resume] [--json] "
    "-o DIR";

template <typename T> Result<T> numberOption(const ParsedArgs& a, const std::string& name, T fallback)
{
    if (!a.has(name)) return fallback;
    const std::string v = a.value(name);
    try {
        size_t used = 0;
        const unsigned long long n = std::stoull(v, &used);
        if (used != v.size() || v.starts_with('-')) throw std::invalid_argument(v);
        return T(n);
    } catch (const std::exception&) {
        return makeError(name + " takes a non-negative number, not '" + v + "'");
    }
}

Result<search::SearchConfig> configFrom(const ParsedArgs& a, bool resume)
{
    search::SearchConfig c;
    // climb is the default: it keeps only what its paired, raced measurements confirm (docs/search.md).
    auto algo = search::parseAlgorithm(a.value("--algo", "climb"));
    if (!algo)
        return makeError("--algo is climb, anneal, greedy, random, listsched or ppo, not '" +
                         a.value("--algo") + "'");
    c.algorithm = *algo;
    if (a.has("--margin")) {
        if (c.algorithm != search::Algorithm::Climb) return makeError("--margin goes with --algo climb");
        const std::string v = a.value("--margin");
        char* end = nullptr;
        const double m = std::strtod(v.c_str(), &end);
        if (v.empty() || *end || !(m >= 0) || m > 100)
            return makeError("--margin takes a number of noise floors (0 to 100), not '" + v + "'");
        c.climbMargin = m;
    }
    c.preset = a.value("--preset");
    auto space = search::parseSearchSpace(a.value("--space", "mem"));
    if (!space)
        return makeError("--space is mem, all, yield, all+control or rescheduled, not '" +
                         a.value("--space") + "'");
    c.space = *space;
    auto evals = numberOption<int64_t>(a, "--budget-evals", 0);
    if (!evals) return evals.error();
    c.budgetEvals = *evals;
    if (a.has("--budget-time")) {
        auto t = search::parseDuration(a.value("--budget-time"));
        if (!t)
            return makeError("--budget-time takes a duration such as 90s, 10m or 1h, not '" +
                             a.value("--budget-time") + "'");
        c.budgetSeconds = *t;
    }
    auto seed = numberOption<uint64_t>(a, "--seed", 1);
    if (!seed) return seed.error();
    c.seed = *seed;
    c.seedWithListSchedule = !a.has("--no-list-seed");
    c.guide = a.value("--guide", a.has("--stalls") ? "stalls" : "uniform");
    if (a.has("--ppo-config") || a.has("--policy")) {
        if (c.algorithm != search::Algorithm::Ppo)
            return makeError("--ppo-config and --policy go with --algo ppo");
        if (resume) return makeError("a resumed PPO run continues its own settings and policy");
    }
    if (c.algorithm == search::Algorithm::Ppo && a.has("--ppo-config")) {
        // A settings file: any subset of the keys of docs/ppo.md over a preset ("preset", default cuasmrl).
        std::vector<uint8_t> bytes;
        const std::string path = a.value("--ppo-config");
        if (!readFileBytes(path, bytes)) return makeError("cannot read " + path);
        auto j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (j.is_discarded()) return makeError(path + " is not JSON");
        c.ppoPreset = j.is_object() ? j.value("preset", std::string("cuasmrl")) : "cuasmrl";
        auto preset = search::ppoPreset(c.ppoPreset);
        if (!preset) return makeError(path + ": " + preset.message());
        auto settings = search::ppoSettingsFromJson(j, *preset);
        if (!settings) return makeError(path + ": " + settings.message());
        c.ppo = *settings;
    }
    if (resume) return c; // the checkpoint's configuration wins; only the budget is taken from here
    if (Status s = c.validate(); !s) return s.error();
    return c;
}

void progressBar(const search::SearchStatus& s, const search::SearchConfig& c)
{
    double f = 0.0;
    if (c.budgetEvals > 0) f = std::max(f, double(s.evaluations) / double(c.budgetEvals));
    if (c.budgetSeconds > 0) f = std::max(f, s.seconds / c.budgetSeconds);
    f = std::clamp(f, 0.0, 1.0);
    const int width = 28, filled = int(f * width);
    std::fprintf(stderr, "\r[%.*s%*s] %3.0f%%  %lld evals  %.1f/s  best %.4fx  %s   ", filled,
                 "############################", width - filled, "", f * 100.0, (long long)s.evaluations,
                 s.evalsPerSecond, s.bestSpeedup, s.phase.c_str());
}

} // namespace

int runSearchCommand(const Args& raw)
{
    std::string err;
    const ParsedArgs a = parseArgs(
        raw,
        OptionSpec{{"--algo", "--preset", "--space", "--budget-evals", "--budget-time", "--seed", "-o",
                    "--screen", "--rounds", "--final-rounds", "--final-processes", "--checkpoint-every",
                    "--guide", "--stalls", "--ppo-config", "--policy", "--margin"},
                   {"--json", "--resume", "--no-list-seed", "--no-verify", "--sample-best"}}
            .add(evaluatorOptionSpec())
            .add(OptionSpec{{"--arch"}, {"--keep-stale-line-info"}}),
        err);
    if (!err.empty()) return fail(err);
    if (a.positional.size() != 1 || a.value("-o").empty()) return fail(kUsage);
    const bool resume = a.has("--resume");
    auto config = configFrom(a, resume);
    if (!config) return fail(config.message());

    // --seed is the search's seed here, never the input seed (that is --input-seed).
    ParsedArgs evalArgs = a;
    std::erase_if(evalArgs.options, [](const auto& o) { return o.first == "--seed"; });
    auto evalOptions = evaluatorOptions(evalArgs, "auto");
    if (!evalOptions) return fail(evalOptions.message());
    auto wsOptions = workspaceOptions(a);
    if (!wsOptions) return fail(wsOptions.message());
    wsOptions->evaluator = *evalOptions;

    SearchRunOptions options;
    options.config = *config;
    options.outDir = a.value("-o");
    options.resume = resume;
    options.verifyFreshInputs = !a.has("--no-verify");
    options.stallsPath = a.value("--stalls");
    options.sampleBest = a.has("--sample-best");
    options.policyPath = a.value("--policy");
    if (!options.policyPath.empty() && !std::ifstream(options.policyPath, std::ios::binary))
        return fail("cannot read the policy " + options.policyPath);
    auto screen = numberOption<int>(a, "--screen", options.plan.screenRounds);
    auto rounds = numberOption<int>(a, "--rounds", options.plan.confirmRounds);
    auto finalRounds = numberOption<int>(a, "--final-rounds", options.plan.fullRounds);
    auto finalProcesses = numberOption<int>(a, "--final-processes", options.plan.fullProcesses);
    auto every = numberOption<int>(a, "--checkpoint-every", options.control.checkpointEvery);
    for (const auto* r : {&screen, &rounds, &finalRounds, &finalProcesses, &every})
        if (!*r) return fail(r->message());
    options.plan = {*screen, *rounds, *finalRounds, std::clamp(*finalProcesses, 1, 64)};
    options.control.checkpointEvery = std::max(1, *every);
    options.control.stop = &g_stop;
    if (resume) {
        auto saved = readSearchCheckpoint(options.outDir);
        if (!saved) return fail(saved.message());
    }

    auto run = openSearchRun(a.positional[0], *wsOptions);
    if (!run) return fail(run.message());
    std::fprintf(stderr, "sassx-cli: evaluator: %s (%s)\n", (*run)->choice().backend.c_str(),
                 (*run)->choice().reason.c_str());
    printNotices((*run)->kernel());
    if ((*run)->choice().backend != "gpu")
        if (const std::string blind = search::estimateBlindSpot(options.config.space); !blind.empty())
            std::fprintf(stderr, "sassx-cli: note: %s\n", blind.c_str());

    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const bool json = a.has("--json");
    const bool bar = !json && isatty(STDERR_FILENO);
    search::SearchCallbacks callbacks;
    callbacks.onEvaluation = [&](const search::SearchEvaluation& e, const search::SearchStatus& s) {
        if (json) {
            nlohmann::json j = search::toJson(e);
            j["status"] = {{"evaluations", s.evaluations},  {"evals_per_second", s.evalsPerSecond},
                           {"best_speedup", s.bestSpeedup}, {"incumbent_speedup", s.incumbentSpeedup},
                           {"legal_moves", s.legalMoves},   {"phase", s.phase}};
            std::printf("%s\n", j.dump().c_str());
            std::fflush(stdout);
        } else if (bar) {
            progressBar(s, options.config);
        }
    };
    auto report = (*run)->run(options, callbacks);
    if (bar) std::fputc('\n', stderr);
    if (!report) return fail(report.message());
    if (json) {
        std::printf("%s\n", nlohmann::json{{"report", report->json}}.dump().c_str());
    } else {
        std::printf("%s\n", report->summary.c_str());
        std::printf("  report: %s\n  diff:   %s\n  cubin:  %s%s\n  history: %s\n", report->reportPath.c_str(),
                    report->diffPath.c_str(), report->bestCubinPath.c_str(),
                    report->improved ? "" : " (the original: nothing beat it)", report->historyPath.c_str());
        if (report->json.contains("ppo"))
            std::printf("  policy: %s (%d updates, %d episodes)\n",
                        report->json["ppo"].value("policy", "").c_str(),
                        report->json["ppo"].value("updates", 0), report->json["ppo"].value("episodes", 0));
        if (!report->json.value("finished", true))
            std::printf("  stopped before its budget: resume with --resume -o %s\n", options.outDir.c_str());
    }
    return 0;
}
