// sassx-cli search: a background-free search on one kernel (core/session/search_run.h). Prints a
// progress bar on a terminal (JSON lines with --json), then the best speed-up and where the report,
// the diff and the tuned cubin went.
#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"

#include "core/session/ppo_setup.h"
#include "core/session/search_run.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <unistd.h>

namespace {

using namespace sassx;

std::atomic_bool g_stop{false};

void onSignal(int)
{
    g_stop = true; // the run stops after the evaluation in flight and checkpoints
}

struct SearchArgs
{
    std::string spec;
    std::string out;
    // climb by default: it keeps only what its paired, raced measurements confirm (docs/search.md)
    std::string algo = "climb";
    std::optional<double> margin;
    int perGpu = search::SearchConfig{}.candidatesPerGpu;
    std::string preset;
    // auto: the measured space on a GPU, mem under the estimate (search_config.h, autoSpace)
    std::string space = "auto";
    int64_t budgetEvals = 0;
    std::string budgetTime; // a duration: 90s, 10m, 1h
    uint64_t seed = 1;
    std::string guide; // empty: stalls when --stalls is given, else uniform
    std::string stalls, ppoConfig, policy;
    int screenRounds = SearchMeasurePlan{}.screenRounds;
    int confirmRounds = SearchMeasurePlan{}.confirmRounds;
    int finalRounds = SearchMeasurePlan{}.fullRounds;
    int finalProcesses = SearchMeasurePlan{}.fullProcesses;
    int checkpointEvery = search::SearchControl{}.checkpointEvery;
    bool json = false, resume = false, noListSeed = false, noVerify = false, sampleBest = false;
    bool noRestart = false;
    WorkspaceArgs workspace;
    EvaluatorArgs evaluator; // backend: auto
};

Result<search::SearchConfig> configFrom(const SearchArgs& a)
{
    search::SearchConfig c;
    if (Status s = setAlgorithmAndSpace(c, a.algo, a.space, search::AutoSpace::Search, a.evaluator.backend);
        !s)
        return s.error();
    if (a.noRestart) {
        if (c.algorithm != search::Algorithm::Climb) return makeError("--no-restart goes with --algo climb");
        c.climbRestarts = false;
    }
    if (a.margin) {
        if (c.algorithm != search::Algorithm::Climb) return makeError("--margin goes with --algo climb");
        if (!(*a.margin >= 0) || *a.margin > 100) {
            char shown[32];
            std::snprintf(shown, sizeof shown, "%g", *a.margin);
            return makeError(std::string("--margin takes a number of noise floors (0 to 100), not '") +
                             shown + "'");
        }
        c.climbMargin = *a.margin;
    }
    auto preset = search::parsePreset(a.preset);
    if (!preset) return makeError("--preset takes sip, not '" + a.preset + "'");
    c.preset = *preset;
    c.candidatesPerGpu = a.perGpu;
    c.budgetEvals = a.budgetEvals;
    if (!a.budgetTime.empty()) {
        auto t = search::parseDuration(a.budgetTime, "--budget-time");
        if (!t) return t.error();
        c.budgetSeconds = *t;
    }
    c.seed = a.seed;
    c.seedWithListSchedule = !a.noListSeed;
    if (!a.guide.empty()) {
        auto guide = search::parseGuide(a.guide);
        if (!guide) return makeError("--guide takes uniform or stalls, not '" + a.guide + "'");
        c.guide = *guide;
    } else {
        c.guide = a.stalls.empty() ? search::ProposalGuide::Uniform : search::ProposalGuide::Stalls;
    }
    if (!a.ppoConfig.empty() || !a.policy.empty()) {
        if (c.algorithm != search::Algorithm::Ppo)
            return makeError("--ppo-config and --policy go with --algo ppo");
        if (a.resume) return makeError("a resumed PPO run continues its own settings and policy");
    }
    if (c.algorithm == search::Algorithm::Ppo && !a.ppoConfig.empty()) {
        if (Status s = readPpoSettings(a.ppoConfig, c); !s) return s.error();
    }
    if (a.resume) return c; // the checkpoint's configuration wins; only the budget is taken from here
    if (Status s = c.validate(); !s) return s.error();
    return c;
}

void progressBar(const search::SearchStatus& s, const search::SearchConfig& c)
{
    const double f = search::budgetFraction(c, s.evaluations, s.seconds);
    const int width = 28, filled = int(f * width);
    std::fprintf(stderr, "\r[%.*s%*s] %3.0f%%  %lld evals  %.1f/s  best %.4fx  %s   ", filled,
                 "############################", width - filled, "", f * 100.0, (long long)s.evaluations,
                 s.evalsPerSecond, s.bestSpeedup, s.phase.c_str());
}

// What the run is asked for, from the command line: the configuration, the output and the plan.
Result<SearchRunOptions> runOptions(const SearchArgs& a)
{
    auto config = configFrom(a);
    if (!config) return config.error();
    SearchRunOptions options;
    options.config = *config;
    options.outDir = a.out;
    options.resume = a.resume;
    options.verifyFreshInputs = !a.noVerify;
    options.stallsPath = a.stalls;
    options.sampleBest = a.sampleBest;
    options.policyPath = a.policy;
    if (!options.policyPath.empty() && !std::ifstream(options.policyPath, std::ios::binary))
        return makeError("cannot read the policy " + options.policyPath);
    options.plan = {a.screenRounds, a.confirmRounds, a.finalRounds, std::clamp(a.finalProcesses, 1, 64)};
    options.control.checkpointEvery = std::max(1, a.checkpointEvery);
    options.control.stop = &g_stop;
    return options;
}

void printReport(const SearchReport& report, const std::string& outDir)
{
    std::printf("%s\n", report.summary.c_str());
    std::printf("  report: %s\n  diff:   %s\n  cubin:  %s%s\n  history: %s\n", report.reportPath.c_str(),
                report.diffPath.c_str(), report.bestCubinPath.c_str(),
                report.improved ? "" : " (the original: nothing beat it)", report.historyPath.c_str());
    if (report.json.contains("ppo"))
        std::printf("  policy: %s (%d updates, %d episodes)\n",
                    report.json["ppo"].value("policy", "").c_str(), report.json["ppo"].value("updates", 0),
                    report.json["ppo"].value("episodes", 0));
    if (!report.json.value("finished", true))
        std::printf("  stopped before its budget: resume with --resume -o %s\n", outDir.c_str());
}

int runSearch(const SearchArgs& a)
{
    auto options = runOptions(a);
    if (!options) return fail(options.message());
    // --seed is the search's seed here, never the input seed (that is --input-seed).
    auto evalOptions = evaluatorOptions(a.evaluator);
    if (!evalOptions) return fail(evalOptions.message());
    WorkspaceOptions wsOptions = workspaceOptions(a.workspace);
    wsOptions.evaluator = *evalOptions;
    if (a.resume) {
        auto saved = readSearchCheckpoint(options->outDir);
        if (!saved) return fail(saved.message());
    }

    auto run = openSearchRun(a.spec, wsOptions);
    if (!run) return fail(run.message());
    std::fprintf(stderr, "sassx-cli: evaluator: %s (%s)\n",
                 eval::backendName((*run)->choice().backend).c_str(), (*run)->choice().reason.c_str());
    if (const eval::BaselineInfo* b = (*run)->kernelEvaluator().baseline())
        if (const std::string line = eval::programReferenceLine(b->raw); !line.empty())
            std::fprintf(stderr, "sassx-cli: program: %s\n", line.c_str());
    if (!a.resume) {
        options->config = (*run)->resolvedConfig(options->config);
        if (options->config.autoSpace != search::AutoSpace::Off)
            std::fprintf(stderr, "sassx-cli: space: %s (auto: %s)\n",
                         search::spaceName(options->config.space).c_str(),
                         options->config.spaceReason().c_str());
    }
    printNotices((*run)->kernel());
    if ((*run)->choice().backend != eval::Backend::Gpu)
        if (const std::string blind = search::estimateBlindSpot(options->config.space); !blind.empty())
            std::fprintf(stderr, "sassx-cli: note: %s\n", blind.c_str());

    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const bool bar = !a.json && isatty(STDERR_FILENO);
    search::SearchCallbacks callbacks;
    callbacks.onEvaluation = [&](const search::SearchEvaluation& e, const search::SearchStatus& s) {
        if (a.json) {
            nlohmann::json j = search::toJson(e);
            j["status"] = {{"evaluations", s.evaluations},  {"evals_per_second", s.evalsPerSecond},
                           {"best_speedup", s.bestSpeedup}, {"incumbent_speedup", s.incumbentSpeedup},
                           {"legal_moves", s.legalMoves},   {"phase", s.phase}};
            std::printf("%s\n", j.dump().c_str());
            std::fflush(stdout);
        } else if (bar) {
            progressBar(s, options->config);
        }
    };
    bool phaseShown = false;
    callbacks.onPhase = [&](const std::string& phase) { // on the terminal only: --json keeps stdout clean
        if (!bar) return;
        std::fprintf(stderr, "%s%s ...", phaseShown ? ", " : "\n", phase.c_str());
        phaseShown = true;
    };
    auto report = (*run)->run(*options, callbacks);
    if (bar) std::fputc('\n', stderr);
    if (!report) return fail(report.message());
    if (a.json)
        std::printf("%s\n", nlohmann::json{{"report", report->json}}.dump().c_str());
    else
        printReport(*report, options->outDir);
    return 0;
}

// The search's own options: what to search, how long, where the results go.
void addSearchOptions(CLI::App& command, SearchArgs& a)
{
    command.add_option("SPEC.json", a.spec, "the launch spec (docs/launch-spec.md)")->required();
    command.add_option("-o", a.out, "the run's directory: report, diff, best cubin, checkpoint")
        ->type_name("DIR")
        ->required();
    command.add_option("--algo", a.algo, "the search algorithm (docs/search.md)")
        ->check(oneOf({"climb", "anneal", "greedy", "random", "listsched", "ppo"}))
        ->capture_default_str();
    command.add_option("--margin", a.margin, "--algo climb: noise floors a gain must clear (0 to 100)");
    command.add_option("--preset", a.preset, "--algo anneal: the SIP paper's schedule")
        ->check(oneOf({search::presetName(search::AnnealPreset::Sip)}));
    command
        .add_option("--space", a.space,
                    "what may change: moves of memory or all instructions, control bits; auto: all+control "
                    "on a GPU, mem under the estimate")
        ->check(oneOf({"auto", "mem", "all", "yield", "all+control", "rescheduled"}))
        ->capture_default_str();
    command.add_option("--budget-evals", a.budgetEvals, "stop after N evaluations (left out: no limit)")
        ->check(aboveZero());
    command.add_option("--budget-time", a.budgetTime, "stop after this long: 90s, 10m, 1h")
        ->type_name("DURATION");
    command.add_option("--seed", a.seed, "the search's random seed")
        ->check(nonNegative())
        ->capture_default_str();
    command.add_flag("--resume", a.resume, "continue the run in -o DIR from its checkpoint");
    command.add_flag("--json", a.json, "one JSON line per evaluation, then the report");
    command.add_flag("--no-list-seed", a.noListSeed, "do not start from the list-scheduling result");
    command.add_flag("--no-restart", a.noRestart,
                     "--algo climb: end when it converges instead of restarting from a perturbed best");
    command.add_option("--ppo-config", a.ppoConfig, "--algo ppo: a settings file (docs/ppo.md)")
        ->type_name("FILE");
    command.add_option("--policy", a.policy, "--algo ppo: warm-start from a saved policy.pt")
        ->type_name("FILE");
}

// How candidates are measured, and stall-guided proposals.
void addMeasureOptions(CLI::App& command, SearchArgs& a)
{
    auto rounds = [&](const std::string& name, int& value, const std::string& what) {
        command.add_option(name, value, what)->check(nonNegative())->capture_default_str();
    };
    rounds("--screen", a.screenRounds, "rounds that screen every candidate");
    rounds("--rounds", a.confirmRounds, "fresh rounds confirming a candidate that beat the incumbent");
    rounds("--final-rounds", a.finalRounds, "rounds of the best's final figure");
    rounds("--final-processes", a.finalProcesses, "fresh worker processes of the final figure (1 to 64)");
    rounds("--checkpoint-every", a.checkpointEvery, "evaluations between checkpoints");
    command
        .add_option("--per-gpu", a.perGpu, "with several GPUs: candidates handed to the pool at once per GPU")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    command.add_flag("--no-verify", a.noVerify, "skip re-checking the best on inputs of another seed");
    command
        .add_option("--guide", a.guide, "where proposals go (default: stalls with --stalls, else uniform)")
        ->check(oneOf({search::guideName(search::ProposalGuide::Uniform),
                       search::guideName(search::ProposalGuide::Stalls)}));
    command.add_option("--stalls", a.stalls, "stall samples of the original to guide proposals with")
        ->type_name("FILE");
    command.add_flag("--sample-best", a.sampleBest, "sample the best variant's stalls at the end (GPU)");
}

} // namespace

CliCommand addSearchCommand(CLI::App& root)
{
    auto args = std::make_shared<SearchArgs>();
    CLI::App* command = root.add_subcommand("search", "search one kernel's schedules for a faster one");
    addSearchOptions(*command, *args);
    addMeasureOptions(*command, *args);
    addEvaluatorOptions(*command, args->evaluator);
    addWorkspaceOptions(*command, args->workspace, KernelOption::FromSpec);
    return {command, [args] { return runSearch(*args); }};
}
