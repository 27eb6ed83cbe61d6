// A tune on several Slurm nodes with one results database (docs/tune.md, "On a cluster"): each array
// task records only into its own database in its run directory, and the submitting process merges each
// task's file into the tune's database as the task ends. The task side is tune_task_helper (what
// `sassx-cli tune DIR --task-index I --task-db` does, with the estimate backend) run as a child process
// in a private mount namespace where the submitter's database directory is an empty tmpfs, so it cannot
// reach that database at all. Slurm's client tools are small fake scripts that run every array task at
// once in the background, as nodes would.
#include "core/common/subprocess.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_plan.h"
#include "core/tune/tune_report.h"
#include "core/tune/tune_slurm.h"
#include "core/tune/tune_task.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

using namespace sassx;
using namespace sassx::tune;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const std::string kSamples = SASSX_SAMPLES_DIR;

std::string readText(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeText(const fs::path& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

// One number from the file, read as another program would.
int64_t scalar(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    int64_t value = -1;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* q = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &q, nullptr) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW)
            value = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    sqlite3_close(db);
    return value;
}

bool rawSql(const std::string& path, const std::string& sql)
{
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
              sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

// Rows of every table: what must not change when a merge is refused, or is repeated.
std::string tableCounts(const std::string& path)
{
    std::string out;
    for (const char* table : {"kernels", "devices", "runs", "evaluations", "bests"})
        out += std::string(table) + "=" +
               std::to_string(scalar(path, std::string("SELECT count(*) FROM ") + table)) + " ";
    return out;
}

// Restores an environment variable when it goes out of scope (also when a QVERIFY returns early).
class EnvOverride
{
public:
    EnvOverride(const char* name, const std::string& value) : m_name(name)
    {
        if (const char* old = std::getenv(name)) m_old = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~EnvOverride()
    {
        if (m_old)
            ::setenv(m_name, m_old->c_str(), 1);
        else
            ::unsetenv(m_name);
    }

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

// Fake sbatch, squeue, scontrol, scancel and sacct over a state directory ($SASSX_FAKE_SLURM). sbatch
// copies the batch script (as Slurm does: the launcher renames its own copy at once) and starts every
// task in the background with its log; a task is running until its .rc file (written by the batch
// script when the command returns) exists.
void writeFakeSlurm(const fs::path& bin)
{
    fs::create_directories(bin);
    const std::map<std::string, std::string> tools = {{"sbatch", R"(#!/bin/sh
state="$SASSX_FAKE_SLURM"; array=; out=; script=
for a in "$@"; do
  case "$a" in --array=*) array="${a#--array=}";; --output=*) out="${a#--output=}";; --*) ;; *) script="$a";; esac
done
n=$(( ${array#0-} + 1 ))
id=$(( $(cat "$state/next" 2>/dev/null || echo 100) + 1 )); echo $id > "$state/next"
cp "$script" "$state/job-$id.sh"
echo "$(dirname "$out") $n" > "$state/job-$id"
i=0
while [ $i -lt $n ]; do
  log=$(echo "$out" | sed "s/%A/$id/; s/%a/$i/")
  SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i /bin/sh "$state/job-$id.sh" > "$log" 2>&1 < /dev/null &
  i=$((i + 1))
done
echo $id
)"},
                                                      {"squeue", R"(#!/bin/sh
state="$SASSX_FAKE_SLURM"; job=; prev=
for a in "$@"; do [ "$prev" = "-j" ] && job="$a"; prev="$a"; done
read dir n < "$state/job-$job" || { echo "squeue: error: Invalid job id specified" >&2; exit 1; }
i=0
while [ $i -lt $n ]; do
  [ -f "$dir/slurm-${job}_$i.rc" ] || echo "${job}_$i RUNNING"
  i=$((i + 1))
done
)"},
                                                      {"scontrol", R"(#!/bin/sh
state="$SASSX_FAKE_SLURM"
[ "$1" = ping ] && { echo "Slurmctld(primary) at fakehost is UP"; exit 0; }
job="$4"
read dir n < "$state/job-$job" || exit 1
i=0
while [ $i -lt $n ]; do
  if [ -f "$dir/slurm-${job}_$i.rc" ]; then
    rc=$(cat "$dir/slurm-${job}_$i.rc"); st=COMPLETED; [ "$rc" = 0 ] || st=FAILED
  else
    rc=0; st=RUNNING
  fi
  echo "JobId=$((job * 100 + i)) ArrayJobId=$job ArrayTaskId=$i JobName=sassx-tune JobState=$st Reason=None ExitCode=$rc:0 NodeList=fakenode BatchHost=fakenode"
  i=$((i + 1))
done
)"},
                                                      {"scancel", "#!/bin/sh\nexit 0\n"},
                                                      {"sacct", "#!/bin/sh\nexit 1\n"}};
    for (const auto& [name, text] : tools) {
        writeText(bin / name, text);
        fs::permissions(bin / name, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
    }
}

} // namespace

class TestTuneMerge : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    std::string m_unshare; // empty: no private mount namespace here (m_why says why)
    std::string m_why;
    std::string m_goodTaskDb; // a task's database after a finished run (for the refusal rows)

    fs::path tmp(const std::string& name) const
    {
        return m_tmp.filePath(QString::fromStdString(name)).toStdString();
    }

    // The argv that runs `argv` with `hidden` replaced by an empty tmpfs (a node that does not mount
    // the submitter's directory).
    std::vector<std::string> hiding(const fs::path& hidden, std::vector<std::string> argv) const
    {
        std::vector<std::string> out = {
            m_unshare,      "--mount", "/bin/sh", "-c", "mount -t tmpfs sassx-node \"$0\" && exec \"$@\"",
            hidden.string()};
        out.insert(out.end(), argv.begin(), argv.end());
        return out;
    }

    // A spec directory of rmsnorm and sgemm_leakyrelu, and, with `unmade`, a third kernel whose spec
    // lacks a parameter (its task fails after recording the failure).
    fs::path planDir(const std::string& name, bool unmade) const
    {
        const fs::path dir = tmp(name);
        fs::create_directories(dir);
        for (const char* f : {"rmsnorm.launch.json", "rmsnorm.sm_90.cubin", "sgemm_leakyrelu.launch.json",
                              "sgemm_leakyrelu.sm_90.cubin"})
            fs::copy_file(kSamples + "/" + f, dir / f, fs::copy_options::overwrite_existing);
        if (unmade) {
            auto spec = nlohmann::json::parse(readText(dir / "rmsnorm.launch.json"));
            spec["params"].erase(spec["params"].size() - 1);
            writeText(dir / "unmade.launch.json", spec.dump());
        }
        return dir;
    }

    // The submitter's database, with the plan's kernels recorded (as runTuneOnSlurm does first).
    std::string submitterDb(const fs::path& dir, const TunePlan& plan) const
    {
        fs::create_directories(dir);
        const std::string path = (dir / "tune.sqlite").string();
        auto db = TuneDb::open(path);
        if (!db) return {};
        for (const TuneKernel& k : plan.kernels)
            if (!(*db)->upsertKernel(k, plan.sharesNote)) return {};
        return path;
    }

private slots:
    void initTestCase()
    {
        if (!fs::exists(kSamples + "/rmsnorm.sm_90.cubin") ||
            !fs::exists(kSamples + "/sgemm_leakyrelu.sm_90.cubin"))
            QSKIP("sample cubins not built (no nvcc)");
        QVERIFY2(fs::exists(TUNE_TASK_HELPER), TUNE_TASK_HELPER);
        // Whether this machine lets a test hide a directory from a child (a private mount namespace):
        // the child must then see the directory empty.
        const fs::path probe = tmp("probe");
        fs::create_directories(probe);
        writeText(probe / "visible", "x");
        m_unshare = findExecutable("unshare").string();
        if (m_unshare.empty()) {
            m_why = "unshare not found";
            return;
        }
        auto out = runProcess(
            {hiding(probe, {"/bin/sh", "-c", "test ! -e \"$0/visible\"", probe.string()}), {}, true}, 30s);
        if (!out || !out->ok()) {
            m_why = "a private mount namespace is not permitted here (unshare --mount as root): " +
                    (out ? out->out + out->exit.text() : out.message());
            m_unshare.clear();
        }
    }

    // The task runs where the submitter's database does not exist; its results are in its own file
    // only, and reach the submitter's database through the merge: the same history, byte for byte, as
    // the run wrote. Merging again, or after the task ran again (it finds its kernel done), adds
    // nothing, and keeps a write-back recorded in the submitter's database.
    void taskResultsArriveOnlyThroughTheMerge()
    {
        if (m_unshare.empty()) QSKIP(m_why.c_str());
        const fs::path dir = planDir("plan", false), runs = tmp("shared/runs"), submitter = tmp("submitter");
        auto plan = discoverPlan(dir.string());
        QVERIFY(plan.ok());
        QCOMPARE(plan->kernels[0].name, std::string("rmsnorm"));
        const std::string mainDb = submitterDb(submitter, *plan);
        QVERIFY(!mainDb.empty());
        const std::string before = tableCounts(mainDb);

        const auto task = hiding(submitter, {TUNE_TASK_HELPER, dir.string(), runs.string(), "0"});
        auto out = runProcess({task, {}, true}, 120s);
        QVERIFY(out.ok());
        QVERIFY2(out->ok(), (out->exit.text() + ": " + out->out).c_str());
        QVERIFY2(out->out.find("rmsnorm finished") != std::string::npos, out->out.c_str());
        QVERIFY(out->out.find(mainDb) == std::string::npos);
        // Nothing reached the submitter's database; everything is in the task's own file, which the
        // task closed whole (no journal left behind).
        QCOMPARE(tableCounts(mainDb), before);
        const std::string taskDb = taskDbPath(runs.string(), "rmsnorm");
        QCOMPARE(scalar(taskDb, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(1));
        const int64_t evaluations = scalar(taskDb, "SELECT count(*) FROM evaluations");
        QVERIFY2(evaluations >= 1 && evaluations <= 6, std::to_string(evaluations).c_str());
        QVERIFY(!fs::exists(taskDb + "-journal") && !fs::exists(taskDb + "-wal"));
        m_goodTaskDb = tmp("good-task.sqlite").string();
        fs::copy_file(taskDb, m_goodTaskDb);

        auto db = TuneDb::open(mainDb);
        QVERIFY(db.ok());
        auto merged = (*db)->mergeTaskDb(taskDb);
        QVERIFY2(merged.ok(), merged ? "" : merged.message().c_str());
        QCOMPARE(merged->runs, 1);
        QCOMPARE(merged->evaluations, evaluations);
        QCOMPARE(merged->kernels, std::vector<std::string>{"rmsnorm"});
        auto report = buildReport(**db);
        QVERIFY(report.ok());
        const auto row = std::find_if(report->rows.begin(), report->rows.end(),
                                      [](const TuneReportRow& r) { return r.kernel == "rmsnorm"; });
        QVERIFY(row != report->rows.end());
        QCOMPARE(row->status, KernelStatus::Finished);
        QCOMPARE(row->evaluations, evaluations);
        QVERIFY(row->estimate && row->best);
        QCOMPARE(row->outDir, (runs / "rmsnorm").string());
        auto exported = exportRuns(**db, tmp("export").string());
        QVERIFY(exported.ok());
        QCOMPARE(readText(tmp("export/rmsnorm/history.csv")), readText(runs / "rmsnorm/history.csv"));

        // Twice: nothing more.
        const std::string once = tableCounts(mainDb);
        QVERIFY((*db)->mergeTaskDb(taskDb).ok());
        QCOMPARE(tableCounts(mainDb), once);
        // The task again (a resumed tune): its kernel is done in its own file; the merge keeps the
        // one run, and the write-back the submitter recorded meanwhile.
        auto latest = (*db)->latestRun("rmsnorm");
        QVERIFY(latest.ok() && *latest);
        QVERIFY((*db)->setWrittenBack((*latest)->id, "/cache/rmsnorm-entry").ok());
        out = runProcess({task, {}, true}, 120s);
        QVERIFY(out.ok() && out->ok());
        QVERIFY2(out->out.find("rmsnorm done") != std::string::npos, out->out.c_str());
        QVERIFY((*db)->mergeTaskDb(taskDb).ok());
        QCOMPARE(tableCounts(mainDb), once);
        auto best = (*db)->best((*latest)->id);
        QVERIFY(best.ok() && *best);
        QCOMPARE((*best)->writtenBack, std::string("/cache/rmsnorm-entry"));
    }

    void damagedTaskDatabaseIsRefused_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("expected");
        QTest::newRow("truncated") << "truncated"
                                   << "is damaged";
        QTest::newRow("not SQLite") << "garbage"
                                    << "is not a SQLite database";
        QTest::newRow("empty file") << "empty"
                                    << "is not a sassx tune database";
        QTest::newRow("another program's") << "foreign"
                                           << "is not a sassx tune database";
        QTest::newRow("another version") << "version"
                                         << "schema version 7";
    }

    // A task database that is cut short, not SQLite, another program's or of another version is refused
    // in one line naming it, and the submitter's database stays exactly as it was (and sound).
    void damagedTaskDatabaseIsRefused()
    {
        QFETCH(QString, damage);
        QFETCH(QString, expected);
        if (m_goodTaskDb.empty()) {
            // Without a namespace the task runs as an ordinary child: this test is about the file.
            const fs::path dir = planDir("plan-plain", false), runs = tmp("plain-runs");
            auto out = runProcess({{TUNE_TASK_HELPER, dir.string(), runs.string(), "0"}, {}, true}, 120s);
            QVERIFY(out.ok() && out->ok());
            m_goodTaskDb = taskDbPath(runs.string(), "rmsnorm");
        }
        const std::string bad = tmp("bad-" + damage.toStdString() + ".sqlite").string();
        fs::copy_file(m_goodTaskDb, bad, fs::copy_options::overwrite_existing);
        const std::string d = damage.toStdString();
        if (d == "truncated") {
            const auto size = fs::file_size(bad);
            QVERIFY2(size >= 4 * 4096, std::to_string(size).c_str()); // several pages: the cut loses data
            fs::resize_file(bad, size / 2);
        } else if (d == "garbage") {
            writeText(bad, std::string(8192, 'x'));
        } else if (d == "empty") {
            writeText(bad, "");
        } else if (d == "foreign") {
            fs::remove(bad);
            QVERIFY(rawSql(bad, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')"));
        } else {
            QVERIFY(rawSql(bad, "PRAGMA user_version = 7"));
        }
        auto plan = discoverPlan(planDir("plan-" + d, false).string());
        QVERIFY(plan.ok());
        const std::string mainDb = submitterDb(tmp("submitter-" + d), *plan);
        QVERIFY(!mainDb.empty());
        auto db = TuneDb::open(mainDb);
        QVERIFY(db.ok());
        QVERIFY((*db)->mergeTaskDb(m_goodTaskDb).ok()); // something to lose
        const std::string before = tableCounts(mainDb);

        auto merged = (*db)->mergeTaskDb(bad);
        QVERIFY(!merged.ok());
        QVERIFY2(merged.message().find(bad) != std::string::npos, merged.message().c_str());
        QVERIFY2(merged.message().find(expected.toStdString()) != std::string::npos,
                 merged.message().c_str());
        QVERIFY(merged.message().find('\n') == std::string::npos);
        QCOMPARE(tableCounts(mainDb), before);
        QVERIFY(rawSql(mainDb, "PRAGMA integrity_check"));
        QCOMPARE(scalar(mainDb, "SELECT count(*) FROM pragma_database_list WHERE name = 'task'"), int64_t(0));
        // Still writable and mergeable: the refused file left nothing attached or locked.
        QVERIFY((*db)->mergeTaskDb(m_goodTaskDb).ok());
        QCOMPARE(tableCounts(mainDb), before);
    }

    // A task killed in the middle of a write leaves its changes half in the file and the rest in a hot
    // journal: the merge rolls the journal back and brings in what the task last committed.
    void killedTaskIsRolledBackBeforeTheMerge()
    {
        if (m_goodTaskDb.empty()) QSKIP("no task database (the first test skipped)");
        const fs::path dir = tmp("killed");
        fs::create_directories(dir);
        const std::string taskDb = (dir / "task.sqlite").string();
        fs::copy_file(m_goodTaskDb, taskDb);
        const int64_t committed = scalar(taskDb, "SELECT count(*) FROM evaluations");
        const auto sizeBefore = fs::file_size(taskDb);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // A cache of a few pages spills the transaction's pages into the file before any commit.
            sqlite3* db = nullptr;
            sqlite3_open(taskDb.c_str(), &db);
            sqlite3_exec(
                db,
                "PRAGMA journal_mode=DELETE; PRAGMA cache_size=2; BEGIN; "
                "INSERT INTO evaluations SELECT run_id, step + 1000, seconds, base, kind, outcome, "
                "is_best, ok, speedup, low, high, rounds, noise_floor, source, failure, edits, json "
                "FROM evaluations; INSERT INTO evaluations SELECT run_id, step + 2000, seconds, base, "
                "kind, outcome, is_best, ok, speedup, low, high, rounds, noise_floor, source, "
                "failure, edits, json || zeroblob(20000) FROM evaluations;",
                nullptr, nullptr, nullptr);
            _exit(0); // no COMMIT, no ROLLBACK, no close: a node that died
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY2(fs::exists(taskDb + "-journal") && fs::file_size(taskDb + "-journal") > 0,
                 "the killed writer left no journal");
        QVERIFY2(fs::file_size(taskDb) > sizeBefore, "the killed writer's pages did not reach the file");

        auto plan = discoverPlan(planDir("plan-killed", false).string());
        QVERIFY(plan.ok());
        const std::string mainDb = submitterDb(tmp("submitter-killed"), *plan);
        auto db = TuneDb::open(mainDb);
        QVERIFY(db.ok());
        auto merged = (*db)->mergeTaskDb(taskDb);
        QVERIFY2(merged.ok(), merged ? "" : merged.message().c_str());
        QCOMPARE(merged->evaluations, committed);
        QCOMPARE(scalar(mainDb, "SELECT count(*) FROM evaluations"), committed);
        QVERIFY(!fs::exists(taskDb + "-journal") || fs::file_size(taskDb + "-journal") == 0);
    }

    // The whole flow through runTuneOnSlurm: three tasks at once (one fails: its spec lacks a
    // parameter), none able to see the submitter's database; each task's runs are merged as it ends, the
    // failure is one line naming the task and its log, and the failed run is in the database with its
    // reason. The same tune again (resume) merges into the same rows.
    void slurmArrayMergesEachTaskAsItEnds()
    {
        const fs::path dir = planDir("slurm-plan", true), runs = tmp("slurm/runs"),
                       submitter = tmp("slurm/submitter");
        const fs::path bin = tmp("slurm/bin"), state = tmp("slurm/state");
        writeFakeSlurm(bin);
        fs::create_directories(state);
        EnvOverride path("PATH", bin.string() + ":" + std::getenv("PATH"));
        EnvOverride fake("SASSX_FAKE_SLURM", state.string());
        auto plan = discoverPlan(dir.string());
        QVERIFY(plan.ok());
        QCOMPARE(plan->kernels.size(), size_t(3));
        QCOMPARE(plan->kernels[2].name, std::string("unmade"));
        fs::create_directories(submitter);
        const std::string mainDb = (submitter / "tune.sqlite").string();
        auto db = TuneDb::open(mainDb);
        QVERIFY(db.ok());

        std::vector<std::string> lines;
        TuneSlurmRequest r;
        const std::vector<std::string> task = {TUNE_TASK_HELPER, dir.string(), runs.string(), "{task}"};
        r.argv = m_unshare.empty() ? task : hiding(submitter, task);
        if (m_unshare.empty()) qInfo("tasks see the submitter's directory: %s", m_why.c_str());
        r.plan = &*plan;
        r.db = db->get();
        r.runsDir = runs.string();
        r.logDir = (runs / "slurm").string();
        r.progress = [&](const std::string& line) { lines.push_back(line); };
        Status s = runTuneOnSlurm(r);
        std::string all;
        for (const auto& l : lines)
            all += l + "\n";
        QVERIFY2(!s.ok(), all.c_str());
        QVERIFY2(s.message().find("Slurm task 2 of job ") == 0 &&
                     s.message().find("ended FAILED (exit 1)") != std::string::npos &&
                     s.message().find((runs / "slurm/slurm-").string()) != std::string::npos,
                 s.message().c_str());
        QVERIFY(s.message().find('\n') == std::string::npos);
        for (const char* merged :
             {"merged Slurm task 0 (rmsnorm): 1 run(s)", "merged Slurm task 1 (sgemm_leakyrelu): 1 run(s)",
              "merged Slurm task 2 (unmade): 1 run(s), 0 evaluation(s)"})
            QVERIFY2(all.find(merged) != std::string::npos, all.c_str());
        QCOMPARE(scalar(mainDb, "SELECT count(*) FROM runs"), int64_t(3));
        QCOMPARE(scalar(mainDb, "SELECT count(*) FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE "
                                "r.status = 'finished' AND k.name IN ('rmsnorm', 'sgemm_leakyrelu')"),
                 int64_t(2));
        QCOMPARE(scalar(mainDb, "SELECT count(*) FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE "
                                "r.status = 'failed' AND k.name = 'unmade' AND r.error != ''"),
                 int64_t(1));
        for (const char* k : {"rmsnorm", "sgemm_leakyrelu"})
            QCOMPARE(scalar(mainDb,
                            std::string("SELECT count(*) FROM evaluations e JOIN runs r ON r.id = e.run_id "
                                        "JOIN kernels k ON k.id = r.kernel_id WHERE k.name = '") +
                                k + "'"),
                     scalar(taskDbPath(runs.string(), k), "SELECT count(*) FROM evaluations"));

        // Resume: the same array again; the finished kernels are done in their own files.
        const std::string once = tableCounts(mainDb);
        lines.clear();
        s = runTuneOnSlurm(r);
        QVERIFY(!s.ok() && s.message().find("Slurm task 2 of job ") == 0);
        QCOMPARE(tableCounts(mainDb), once);
    }

    // A task that leaves something other than a tune database: the tune says so in one line, and the
    // submitter's database holds no run of it.
    void slurmTaskLeavingGarbageIsOneLine()
    {
        const fs::path dir = planDir("garbage-plan", false), runs = tmp("garbage/runs"),
                       state = tmp("garbage/state");
        const fs::path bin = tmp("garbage/bin");
        writeFakeSlurm(bin);
        fs::create_directories(state);
        EnvOverride path("PATH", bin.string() + ":" + std::getenv("PATH"));
        EnvOverride fake("SASSX_FAKE_SLURM", state.string());
        auto plan = discoverPlan(dir.string());
        QVERIFY(plan.ok());
        QVERIFY(selectKernels(*plan, {"rmsnorm"}).ok());
        const std::string mainDb = tmp("garbage/tune.sqlite").string();
        auto db = TuneDb::open(mainDb);
        QVERIFY(db.ok());
        TuneSlurmRequest r;
        r.argv = {"/bin/sh", "-c", "mkdir -p \"$0\" && head -c 5000 /dev/urandom > \"$0/task.sqlite\"",
                  (runs / "rmsnorm").string()};
        r.plan = &*plan;
        r.db = db->get();
        r.runsDir = runs.string();
        r.logDir = (runs / "slurm").string();
        Status s = runTuneOnSlurm(r);
        QVERIFY(!s.ok());
        QVERIFY2(s.message().find("results of Slurm task 0 (rmsnorm) not merged: " +
                                  taskDbPath(runs.string(), "rmsnorm")) == 0,
                 s.message().c_str());
        QVERIFY(s.message().find('\n') == std::string::npos);
        QCOMPARE(scalar(mainDb, "SELECT count(*) FROM runs"), int64_t(0));
        QCOMPARE(scalar(mainDb, "SELECT count(*) FROM kernels WHERE name = 'rmsnorm'"), int64_t(1));
    }
};

QTEST_GUILESS_MAIN(TestTuneMerge)
#include "test_tune_merge.moc"
