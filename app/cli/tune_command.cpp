// sassx-cli tune DIR: every kernel of a capture (or of a directory of launch specs) searched, recorded in
// one SQLite database as it goes, and reported from it; --write-back / --restore put the verified bests
// into their Triton cache entries and take them out again (docs/tune.md). Live progress: one line per
// kernel redrawn on a terminal, plain lines otherwise, JSON lines with --json.
#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"

#include "core/common/atomic_file.h"
#include "core/session/search_run.h"
#include "core/tune/tune_launcher.h"
#include "core/tune/tune_report.h"
#include "core/tune/tune_slurm.h"
#include "core/tune/tune_task.h"
#include "core/tune/tune_writeback.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <sys/ioctl.h>
#include <unistd.h>

namespace {

using namespace sassx;
using namespace sassx::tune;
namespace fs = std::filesystem;

std::atomic_bool g_stop{false};

void onSignal(int)
{
    g_stop = true; // each running search stops after its evaluation in flight and checkpoints
}

struct TuneArgs
{
    std::string dir, db, out;
    std::string algo = "climb", space = "auto"; // auto: search::autoSpace(AutoSpace::Tune, …)
    int64_t budgetEvals = 0;
    std::string budgetTime, totalTime;
    uint64_t seed = 1;
    std::string kernels; // NAME,NAME
    int jobs = 1;
    int checkpointEvery = search::SearchControl{}.checkpointEvery;
    std::string launcher = std::string(enumName(kLauncherNames, Launcher::Local));
    std::string partition, gres, slurmTime;
    std::vector<std::string> slurmArgs;
    std::optional<int> taskIndex;
    bool taskDb = false; // record into RUNS_DIR/<kernel>/task.sqlite (tune_task.h), not --db
    bool reportOnly = false, json = false, writeBack = false, restore = false;
    std::string exportDir;
    EvaluatorArgs evaluator;
};

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

// The per-kernel search: the default algorithm and space unless given, and the budget. The default space
// (--space auto) is AutoSpace::Tune's pick (search_config.h says why): the yield flips where kernels are
// measured, the memory moves under the estimate.
Result<search::SearchConfig> configFrom(const TuneArgs& a)
{
    search::SearchConfig c;
    if (Status s = setAlgorithmAndSpace(c, a.algo, a.space, search::AutoSpace::Tune, a.evaluator.backend); !s)
        return s.error();
    c.seed = a.seed;
    c.budgetEvals = a.budgetEvals;
    for (const auto& [name, text, seconds] :
         {std::tuple<const char*, std::string, double*>{"--budget-time", a.budgetTime, &c.budgetSeconds},
          {"--total-time", a.totalTime, nullptr}}) {
        if (text.empty()) continue;
        auto t = search::parseDuration(text, name);
        if (!t) return t.error();
        if (seconds) *seconds = *t;
    }
    if (!a.totalTime.empty() && !a.budgetTime.empty())
        return makeError("--total-time splits a total over the kernels; it does not go with --budget-time");
    if (c.budgetEvals == 0 && a.budgetTime.empty() && a.totalTime.empty())
        return makeError("give a budget: --budget-evals N or --budget-time T per kernel, or --total-time T");
    if (!a.totalTime.empty()) c.budgetSeconds = 1.0; // replaced per kernel by its part of the total
    if (Status s = c.validate(); !s) return s.error();
    return c;
}

// What the user watches: one line per kernel, redrawn in place on a terminal; otherwise a line when a
// kernel changes state; with --json a JSON line per change (and per second of progress) on stdout.
class ProgressBoard
{
public:
    ProgressBoard(const TunePlan& plan, bool json) : m_json(json), m_tty(!json && isatty(STDERR_FILENO))
    {
        winsize ws{};
        if (m_tty && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) m_width = ws.ws_col;
        for (const TuneKernel& k : plan.kernels)
            m_order.push_back(k.name);
    }
    void update(const KernelProgress& p)
    {
        std::lock_guard lock(m_mutex);
        const bool changed = m_last[p.kernel].state != p.state;
        m_last[p.kernel] = p;
        const auto now = std::chrono::steady_clock::now();
        if (m_json) {
            if (changed || now - m_lastJson[p.kernel] > std::chrono::seconds(1)) {
                m_lastJson[p.kernel] = now;
                std::printf("%s\n", toJson(p).dump().c_str());
                std::fflush(stdout);
            }
        } else if (m_tty) {
            if (changed || now - m_lastDraw > std::chrono::milliseconds(100)) {
                m_lastDraw = now;
                redraw();
            }
        } else if (changed && p.state != KernelState::Queued) {
            // Progress as output (a log when piped); stderr keeps only the one line of an error.
            std::printf("%s\n", line(p).c_str());
            std::fflush(stdout);
        }
    }
    void finish()
    {
        std::lock_guard lock(m_mutex);
        if (m_tty) redraw();
    }

private:
    static nlohmann::json toJson(const KernelProgress& p)
    {
        return {{"kernel", p.kernel},     {"state", stateName(p.state)},   {"evaluations", p.evaluations},
                {"fraction", p.fraction}, {"best_speedup", p.bestSpeedup}, {"phase", p.phase},
                {"backend", p.backend},   {"resumed", p.resumed},          {"message", p.message}};
    }
    static std::string line(const KernelProgress& p)
    {
        char head[256];
        std::snprintf(head, sizeof head, "%-28s %-8s %3.0f%% %6lld evals  best %.4fx%s", p.kernel.c_str(),
                      stateName(p.state).c_str(), p.fraction * 100.0, (long long)p.evaluations, p.bestSpeedup,
                      p.resumed > 0 ? " (resumed)" : "");
        std::string s = head;
        const std::string tail = p.state == KernelState::Running ? p.phase : p.message;
        if (!tail.empty()) s += "  " + tail;
        return s;
    }
    void redraw()
    {
        // Back to the top of the board, then each line cleared and rewritten.
        if (m_drawn > 0) std::fprintf(stderr, "\x1b[%dA", m_drawn);
        for (const std::string& name : m_order) {
            KernelProgress p = m_last[name];
            p.kernel = name;
            std::string l = line(p);
            // A line wider than the terminal would wrap, and the cursor-up above would miss it.
            if (l.size() >= m_width) {
                size_t cut = m_width > 4 ? m_width - 4 : 0;
                while (cut > 0 && (static_cast<unsigned char>(l[cut]) & 0xC0) == 0x80)
                    --cut; // not inside a UTF-8 character
                l = l.substr(0, cut) + "...";
            }
            std::fprintf(stderr, "\r\x1b[2K%s\n", l.c_str());
        }
        m_drawn = int(m_order.size());
        std::fflush(stderr);
    }

    bool m_json, m_tty;
    std::vector<std::string> m_order;
    std::map<std::string, KernelProgress> m_last;
    std::map<std::string, std::chrono::steady_clock::time_point> m_lastJson;
    std::chrono::steady_clock::time_point m_lastDraw;
    int m_drawn = 0;
    size_t m_width = 160;
    std::mutex m_mutex;
};

// The report from the database: text on stdout (or one JSON line with --json), HTML and JSON beside
// the runs. A Slurm task (--task-db) reports its one kernel in its log only: RUNS_DIR/report.* are the
// whole tune's, which the submitter writes from the merged database.
int printReport(TuneDb& db, const TuneArgs& a, const std::string& runsDir)
{
    auto report = buildReport(db);
    if (!report) return fail(report.message());
    std::error_code ec;
    fs::create_directories(runsDir, ec);
    const std::string html = (fs::path(runsDir) / "report.html").string();
    const std::string json = (fs::path(runsDir) / "report.json").string();
    if (!a.taskDb) {
        if (Status s = writeFileAtomically(html, renderHtml(*report)); !s) return fail(s.message());
        if (Status s = writeFileAtomically(json, toJson(*report).dump(2) + "\n"); !s)
            return fail(s.message());
    }
    if (a.json) {
        std::printf("%s\n", nlohmann::json{{"report", toJson(*report)}}.dump().c_str());
    } else {
        std::printf("%s", renderText(*report).c_str());
        if (!a.taskDb) std::printf("  html: %s\n  json: %s\n", html.c_str(), json.c_str());
        std::printf("  database: %s\n", db.path().c_str());
    }
    if (!a.exportDir.empty()) {
        auto written = exportRuns(db, a.exportDir);
        if (!written) return fail(written.message());
        if (!a.json) std::printf("  exported %zu file(s) into %s\n", written->size(), a.exportDir.c_str());
    }
    return 0;
}

// One line per kernel (a JSON line with --json), then one error line if any entry failed.
int writeBackOrRestore(TuneDb& db, bool restore, bool json)
{
    const auto lines = restore ? restoreBests(db) : writeBackBests(db);
    bool failed = false;
    for (const WriteBackLine& l : lines) {
        failed = failed || l.failed;
        const std::string kernel = l.kernel.empty() ? "tune" : l.kernel;
        if (json)
            std::printf("%s\n", nlohmann::json{{restore ? "restore" : "write_back",
                                                {{"kernel", kernel},
                                                 {"changed", l.changed},
                                                 {"failed", l.failed},
                                                 {"message", l.message}}}}
                                    .dump()
                                    .c_str());
        else
            std::printf("%s: %s\n", kernel.c_str(), l.message.c_str());
    }
    if (lines.empty() && !json) std::printf("no kernel has a run in %s\n", db.path().c_str());
    if (failed)
        return fail(restore ? "some entries could not be restored (above)"
                            : "some bests could not be written back (above)");
    if (!restore && !json) std::printf("processes that already loaded a written kernel must restart\n");
    return 0;
}

// What each Slurm array task runs: this sassx-cli on the same plan, options and runs directory (all
// absolute: a task starts wherever Slurm puts it), for its one kernel, recording into its own database
// in its run directory. The tune's database is not named: a node may not reach it, and SQLite must not
// be written from several hosts; this process merges each task's file as the task ends.
std::vector<std::string> taskArgv(const TuneArgs& a, const TunePlan& plan, const std::string& runsDir)
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    std::vector<std::string> argv = {ec ? std::string("sassx-cli") : self.string(), "tune", plan.dir};
    auto add = [&](const std::string& option, const std::string& value) {
        argv.insert(argv.end(), {option, value});
    };
    add("--out", runsDir);
    add("--algo", a.algo);
    add("--space", a.space);
    add("--seed", std::to_string(a.seed));
    add("--checkpoint-every", std::to_string(a.checkpointEvery));
    add("--backend", a.evaluator.backend);
    add("--input-sets", std::to_string(a.evaluator.inputSets));
    if (a.evaluator.inputSeed) add("--input-seed", std::to_string(*a.evaluator.inputSeed));
    if (!a.evaluator.worker.empty()) add("--worker", a.evaluator.worker);
    if (a.evaluator.l2Flush) argv.push_back("--l2-flush");
    if (a.budgetEvals > 0) add("--budget-evals", std::to_string(a.budgetEvals));
    if (!a.budgetTime.empty()) add("--budget-time", a.budgetTime);
    if (!a.totalTime.empty()) add("--total-time", a.totalTime);
    if (!a.kernels.empty()) add("--kernels", a.kernels);
    add("--task-index", "{task}");
    argv.push_back("--task-db");
    return argv;
}

// One array task per kernel, each `sassx-cli tune DIR --task-index I` with this tune's options.
int runOnSlurm(const TuneArgs& a, const TunePlan& plan, TuneDb& db, const std::string& runsDir)
{
    TuneSlurmRequest r;
    r.argv = taskArgv(a, plan, runsDir);
    r.plan = &plan;
    r.db = &db;
    r.runsDir = runsDir;
    r.partition = a.partition;
    r.gres = a.gres;
    r.time = a.slurmTime;
    r.extraArgs = a.slurmArgs;
    r.logDir = (fs::path(runsDir) / "slurm").string();
    r.stop = &g_stop;
    // Progress as the local launcher gives it off a terminal: plain lines on stdout, so that stderr
    // holds only the one error line.
    r.progress = [](const std::string& line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    };
    if (Status s = runTuneOnSlurm(r); !s) return fail(s.message());
    return 0;
}

Result<TuneLaunch> launchFrom(const TuneArgs& a, const TunePlan& plan, const std::string& runsDir)
{
    auto config = configFrom(a);
    if (!config) return config.error();
    auto evaluator = evaluatorOptions(a.evaluator);
    if (!evaluator) return evaluator.error();
    if (a.jobs < 1 || a.jobs > 64) return makeError("--jobs takes 1 to 64, not " + std::to_string(a.jobs));
    TuneLaunch launch;
    launch.run.config = *config;
    launch.run.runsDir = runsDir;
    launch.run.workspace.evaluator = *evaluator;
    launch.run.checkpointEvery = std::max(1, a.checkpointEvery);
    launch.run.stop = &g_stop;
    if (a.evaluator.gpus && evaluator->backend != eval::Backend::Estimate) launch.gpus = evaluator->gpus;
    launch.jobs = a.jobs;
    if (!a.totalTime.empty()) {
        auto total = search::parseDuration(a.totalTime, "--total-time");
        if (!total) return total.error();
        launch.totalSeconds = *total;
        launch.seconds = splitBudget(plan, launch.totalSeconds);
    }
    return launch;
}

// The tune itself, then the report; the error line names the first failure or says it was stopped.
int runTune(TuneDb& db, const TunePlan& plan, const TuneArgs& a, const std::string& runsDir)
{
    auto launch = launchFrom(a, plan, runsDir);
    if (!launch) return fail(launch.message());
    if (!a.json)
        for (const SkippedKernel& s : plan.skipped)
            std::printf("skipped %s: %s\n", s.name.c_str(), s.reason.c_str());
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    ProgressBoard board(plan, a.json);
    const int only = a.taskIndex.value_or(-1);
    const TuneOutcome outcome = runLocal(
        plan, *launch, db, [&](const KernelProgress& p) { board.update(p); }, only);
    board.finish();
    int failed = 0, stopped = 0, ran = 0, outOfTime = 0;
    std::string firstFailure;
    for (size_t i = 0; i < outcome.kernels.size(); ++i) {
        if (only >= 0 && size_t(only) != i) continue;
        ++ran;
        const KernelProgress& k = outcome.kernels[i];
        if (k.state == KernelState::Failed) {
            if (failed++ == 0) firstFailure = k.kernel + ": " + k.message;
        } else if (k.outOfTime) {
            ++outOfTime;
        } else if (k.state != KernelState::Finished && k.state != KernelState::Done) {
            ++stopped;
        }
    }
    if (const int code = printReport(db, a, runsDir); code != 0) return code;
    const bool estimated =
        std::any_of(outcome.kernels.begin(), outcome.kernels.end(), [](const KernelProgress& k) {
            return eval::parseBackend(k.backend) == eval::Backend::Estimate;
        });
    // The space the estimated kernels searched: auto resolves to another than a GPU's.
    search::SearchConfig estimatedConfig = launch->run.config;
    estimatedConfig.resolveSpace(false);
    if (const std::string blind = search::estimateBlindSpot(estimatedConfig.space);
        estimated && !blind.empty())
        std::fprintf(stderr, "note: %s\n", blind.c_str());
    if (outOfTime > 0) // not an error: the deadline did its job; the same command tunes them later
        std::fprintf(stderr,
                     "note: --total-time %s was spent before %d kernel(s) could start: run the same "
                     "command to tune them\n",
                     a.totalTime.c_str(), outOfTime);
    if (stopped > 0)
        return fail("stopped with " + std::to_string(stopped) +
                    " kernel(s) unfinished: run the same command to resume");
    if (failed > 0) // one line: the first failure; the report lists them all
        return fail(std::to_string(failed) + " of " + std::to_string(ran) + " kernel(s) failed: " +
                    firstFailure + (failed > 1 ? " (the report lists the others)" : ""));
    if (a.writeBack) return writeBackOrRestore(db, false, a.json);
    return 0;
}

int runTuneCommand(const TuneArgs& given)
{
    if (given.writeBack && given.restore) return fail("--write-back and --restore do not go together");
    // `tune DIR --write-back` without a budget writes back what the database holds (after a tune, or
    // from another machine's); with a budget it tunes first.
    TuneArgs a = given;
    auto launcher = parseEnumOrError(kLauncherNames, a.launcher, "--launcher");
    if (!launcher) return fail(launcher.message());
    if (a.writeBack && a.budgetEvals == 0 && a.budgetTime.empty() && a.totalTime.empty()) a.reportOnly = true;
    auto plan = discoverPlan(a.dir);
    if (!plan) return fail(plan.message());
    if (Status s = selectKernels(*plan, splitList(a.kernels)); !s) return fail(s.message());
    if (a.taskIndex && (*a.taskIndex < 0 || size_t(*a.taskIndex) >= plan->kernels.size()))
        return fail("--task-index " + std::to_string(*a.taskIndex) + " is outside the plan's " +
                    std::to_string(plan->kernels.size()) + " kernel(s)");
    // Absolute: the database records the runs' paths, which a later --write-back may read from elsewhere.
    std::error_code ec;
    const std::string dbPath =
        fs::absolute(a.db.empty() ? fs::path(plan->dir) / "tune.sqlite" : fs::path(a.db), ec).string();
    const std::string runsDir =
        fs::absolute(a.out.empty() ? fs::path(plan->dir) / "tune-runs" : fs::path(a.out), ec)
            .lexically_normal()
            .string();
    if ((a.reportOnly || a.restore) && !fs::exists(dbPath, ec))
        return fail("no tune database at " + dbPath + " (tune DIR first, or give its --db)");
    if (a.taskDb) {
        if (!a.taskIndex) return fail("--task-db goes with --task-index");
        if (a.reportOnly || a.restore || a.writeBack || *launcher != Launcher::Local)
            return fail("--task-db is what a Slurm array task runs: one kernel, recorded, nothing else");
    }
    auto db = a.taskDb ? openTaskDb(runsDir, plan->kernels[size_t(*a.taskIndex)].name) : TuneDb::open(dbPath);
    if (!db) return fail(db.message());
    if (a.restore) return writeBackOrRestore(**db, true, a.json);
    if (a.reportOnly) {
        if (const int code = printReport(**db, a, runsDir); code != 0) return code;
        return a.writeBack ? writeBackOrRestore(**db, false, a.json) : 0;
    }
    if (plan->kernels.empty())
        return fail("no kernel to tune in " + plan->dir +
                    (plan->skipped.empty()
                         ? std::string(" (no *.launch.json beside its cubin)")
                         : ": " + plan->skipped.front().name + ": " + plan->skipped.front().reason));
    if (*launcher == Launcher::Slurm && !a.taskIndex) {
        if (auto config = configFrom(a); !config) return fail(config.message());
        // Each task's results were merged into the database as it ended; the report is rendered from it.
        if (const int code = runOnSlurm(a, *plan, **db, runsDir); code != 0) return code;
        if (const int code = printReport(**db, a, runsDir); code != 0) return code;
        return a.writeBack ? writeBackOrRestore(**db, false, a.json) : 0;
    }
    return runTune(**db, *plan, a, runsDir);
}

void addTuneOptions(CLI::App& command, TuneArgs& a)
{
    command
        .add_option("DIR", a.dir,
                    "a capture (capture.json) or a directory of launch specs beside their cubins")
        ->required();
    command.add_option("--db", a.db, "the results database (default: DIR/tune.sqlite)")->type_name("FILE");
    command.add_option("--out", a.out, "where each kernel's run goes (default: DIR/tune-runs)")
        ->type_name("RUNS_DIR");
    command.add_option("--algo", a.algo, "the search algorithm of every kernel (docs/search.md)")
        ->check(oneOf({"climb", "anneal", "greedy", "random", "listsched", "ppo"}))
        ->capture_default_str();
    command
        .add_option("--space", a.space,
                    "what may change (docs/search.md); auto: yield on a GPU, mem under the estimate")
        ->check(oneOf({"auto", "mem", "all", "yield", "all+control", "rescheduled"}))
        ->capture_default_str();
    command.add_option("--budget-evals", a.budgetEvals, "per kernel: stop after N evaluations")
        ->check(aboveZero());
    command.add_option("--budget-time", a.budgetTime, "per kernel: stop after this long (90s, 10m, 1h)")
        ->type_name("DURATION");
    command
        .add_option("--total-time", a.totalTime, "a total split over the kernels by time share, with a floor")
        ->type_name("DURATION");
    command.add_option("--seed", a.seed, "the searches' random seed")
        ->check(nonNegative())
        ->capture_default_str();
    command.add_option("--kernels", a.kernels, "only these kernels (names from the plan)")
        ->type_name("NAME,NAME");
    command.add_option("--jobs", a.jobs, "kernels at once without --gpus (threads)")->capture_default_str();
    command.add_option("--checkpoint-every", a.checkpointEvery, "evaluations between checkpoints")
        ->check(nonNegative())
        ->capture_default_str();
    command
        .add_option("--task-index", a.taskIndex,
                    "run only the plan's kernel I (what a Slurm array task runs)")
        ->type_name("I");
    command.add_flag("--task-db", a.taskDb,
                     "with --task-index: record into RUNS_DIR/<kernel>/task.sqlite, which this task alone "
                     "writes, instead of --db (what a Slurm array task runs; the submitter merges it)");
    command.add_flag("--report-only", a.reportOnly, "render the report from the database, run nothing");
    command.add_flag("--json", a.json, "JSON lines of progress, then the report as one JSON line");
    command.add_flag("--write-back", a.writeBack, "put every verified best into its Triton cache entry");
    command.add_flag("--restore", a.restore, "put the originals back into the Triton cache entries");
    command
        .add_option("--export", a.exportDir, "write each run's history.csv and report.json from the database")
        ->type_name("DIR");
}

void addLauncherOptions(CLI::App& command, TuneArgs& a)
{
    command.add_option("--launcher", a.launcher, "where the searches run")
        ->check(oneOf(enumNameList(kLauncherNames)))
        ->capture_default_str();
    command.add_option("--partition", a.partition, "--launcher slurm: the partition")->type_name("P");
    command.add_option("--gres", a.gres, "--launcher slurm: generic resources per task, e.g. gpu:1")
        ->type_name("G");
    command.add_option("--slurm-time", a.slurmTime, "--launcher slurm: time limit per task")->type_name("T");
    addRepeatable(command, "--slurm-arg", a.slurmArgs, "--launcher slurm: one more sbatch argument")
        ->type_name("ARG");
}

} // namespace

CliCommand addTuneCommand(CLI::App& root)
{
    auto args = std::make_shared<TuneArgs>();
    CLI::App* command = root.add_subcommand("tune", "search every kernel of a capture or a spec directory");
    addTuneOptions(*command, *args);
    addLauncherOptions(*command, *args);
    addEvaluatorOptions(*command, args->evaluator);
    command->get_option("--gpus")->description(
        "GPU ordinals: that many kernels at once, one GPU each (e.g. 0,1)");
    return {command, [args] { return runTuneCommand(*args); }};
}
