#pragma once
// The results database of `sassx-cli tune` (docs/tune.md has the schema): one SQLite file holding the
// kernels of a plan, the devices they ran on, every search run, each run's evaluations as they are made,
// and each finished run's best. history.csv and report.json of a run are exports of it, and the report
// of a tune is rendered from it alone.
//
// Safe with several writers at once (Slurm array tasks, `--task-index` processes, or the threads of one
// tune): WAL journal, a busy timeout, and every write in one BEGIN IMMEDIATE transaction, so a writer
// waits for the lock instead of failing. Within a process one connection is shared under a mutex.
// `PRAGMA user_version` is the schema version and `PRAGMA application_id` marks the file as sassx's; a
// file of another version or another program is refused with one line, never altered.
#include "core/common/result.h"
#include "core/search/search_state.h"
#include "core/tune/tune_status.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace sassx::tune {

struct TuneKernel;

inline constexpr int kTuneDbVersion = 1;

// How the file keeps its journal. WAL lets readers and writers of one host work at once but needs every
// connection on that host (shared memory); a rollback journal keeps everything in the file and its
// journal, so a file that one Slurm task writes can be read by the submitter on another host after the
// task has ended, and a task killed mid-write leaves a journal the next opener rolls back.
enum class TuneDbJournal
{
    Wal,      // the tune's database, shared by the processes and threads of one host
    Rollback, // a Slurm task's own database (tune_task.h), written by that task alone
};

// What merging a task's database brought into this one (TuneDb::mergeTaskDb).
struct TaskMerge
{
    std::vector<std::string> kernels; // the kernels whose runs were merged
    int runs = 0;
    int64_t evaluations = 0;
};

struct DbKernel
{
    int64_t id = 0;
    std::string name, spec, cubin;
    double timeShare = 0.0, gpuTimeUs = 0.0;
    int64_t launches = 0;
    std::vector<std::string> tritonEntries;
    std::string sharesNote; // where the share came from ("time shares from the capture", …)
    std::string skipped;    // why the plan could not tune it; empty when it could
};

struct DbRun
{
    int64_t id = 0;
    int64_t kernelId = 0;
    std::string kernel; // the kernel's name
    RunStatus status = RunStatus::Running;
    std::string outDir;           // RUNS_DIR/<kernel>
    std::string config;           // search::toJson(SearchConfig) as text
    std::string backend;          // "gpu" or "estimate"
    std::string device;           // the baseline's device ("model" for the estimate), empty until known
    std::string started, updated; // UTC, ISO 8601
    std::string owner;            // \"host:pid\" of the process that last started, resumed or restarted it
    int resumed = 0;              // times the run was continued from its checkpoint
    int64_t evaluations = 0;
    double seconds = 0.0;
    std::string summary, error;
    nlohmann::json report; // the run's report.json (null until finished)
};

struct DbBest
{
    int64_t runId = 0;
    bool improved = false;                       // a variant clearly beat the original
    double speedup = 1.0, low = 1.0, high = 1.0; // the final re-measurement, > 1 = faster
    int rounds = 0;                              // 0: a deterministic estimate
    double noiseFloor = 0.0;                     // ratio units
    std::string source;                          // "measured, NVIDIA H100 …" or "estimate, model"
    std::optional<bool> verified; // re-checked on fresh inputs (none: not checked, e.g. the estimate)
    std::string verification;     // the note or the failure
    nlohmann::json edits = nlohmann::json::array();
    std::string cubin;       // best.cubin of the run
    std::string writtenBack; // the Triton cache entry it was written into, empty when not
};

class TuneDb
{
public:
    // Opens (creating when missing) the database at `path`. Errors are one line: not a SQLite file, a
    // SQLite file of another program, a tune database of another schema version.
    static Result<std::unique_ptr<TuneDb>> open(const std::string& path,
                                                TuneDbJournal journal = TuneDbJournal::Wal);
    // Whether `path` is an existing tune database of this schema version, asked read-only: nothing is
    // created or altered (what a viewer asks before open(), which would create a missing file). The
    // errors are open()'s lines.
    static Status probe(const std::string& path);
    ~TuneDb();
    TuneDb(const TuneDb&) = delete;
    TuneDb& operator=(const TuneDb&) = delete;

    const std::string& path() const { return m_path; }

    // The kernel's row (inserted, or its plan facts updated), by name.
    Result<int64_t> upsertKernel(const TuneKernel& kernel, const std::string& sharesNote);
    // A kernel the plan lists but cannot tune, with the reason (kept so the report can say so).
    Status recordSkipped(const std::string& name, const std::string& reason);
    Result<std::vector<DbKernel>> kernels();

    // "host:pid" of this process, stamped on the runs it starts, resumes or restarts.
    static std::string processOwner();
    // Whether `owner` is another process of this host that is still alive (a run it holds is busy).
    static bool ownerAlive(const std::string& owner);
    // Whether `owner` was a process of this host that no longer runs (its Running run was killed).
    static bool ownerGone(const std::string& owner);

    // A new run of the kernel, Running.
    Result<int64_t> startRun(int64_t kernelId, const std::string& outDir, const std::string& config,
                             const std::string& backend);
    // The kernel's newest run, if any.
    Result<std::optional<DbRun>> latestRun(const std::string& kernel);
    Result<std::vector<DbRun>> runs(); // every run, by kernel then id
    // Continuing the run from a checkpoint of `keptSteps` evaluations: the evaluations recorded after it
    // are dropped (the search makes them again), the run counts one more resume and is running again.
    Status resumeRun(int64_t runId, int64_t keptSteps);
    // A run begun afresh in the same row (its checkpoint was lost): its evaluations are dropped.
    Status restartRun(int64_t runId, const std::string& config, const std::string& backend);
    Status setDevice(int64_t runId, const std::string& device, const std::string& backend);
    // Evaluations in one transaction (a step recorded twice keeps the newer), with the run's counters.
    Status addEvaluations(int64_t runId, const std::vector<search::SearchEvaluation>& evaluations,
                          double seconds);
    Result<std::vector<search::SearchEvaluation>> evaluations(int64_t runId);
    Result<int64_t> evaluationCount(int64_t runId);
    // The run's end: Finished or Stopped with its report and best (another status is refused), or
    // failRun with the reason.
    Status finishRun(int64_t runId, RunStatus status, const nlohmann::json& report,
                     const std::optional<DbBest>& best);
    Status failRun(int64_t runId, const std::string& error);

    Result<std::optional<DbBest>> best(int64_t runId);
    Status setWrittenBack(int64_t runId, const std::string& entry);

    // Brings the runs a Slurm task recorded in its own database (tune_task.h) into this one, in one
    // transaction (tune_db_merge.cpp). A run is the same run when its kernel and out_dir match: the
    // task's copy replaces this one's (status, counters, evaluations, best), except that a write-back
    // recorded here is kept. Merging the same file twice changes nothing more. The task must have ended:
    // the file is read (and a journal it left rolled back) as this process's alone. A file that is not a
    // tune database of this version, or fails SQLite's quick_check, is refused with one line and nothing
    // is written here.
    Result<TaskMerge> mergeTaskDb(const std::string& taskPath);

private:
    TuneDb(sqlite3* db, std::string path, TuneDbJournal journal)
        : m_db(db), m_path(std::move(path)), m_journal(journal)
    {
    }
    Status checkSchema();
    Status exec(const std::string& sql);
    std::string journalPragma() const;
    // Runs `body` inside BEGIN IMMEDIATE … COMMIT (ROLLBACK when it fails).
    template <class F> Status transaction(F&& body);
    Error error(const std::string& what) const;
    Status checkTaskSchema(const std::string& taskPath);
    Result<int64_t> mergeRun(int64_t taskRunId, TaskMerge& merged);

    sqlite3* m_db = nullptr;
    std::string m_path;
    TuneDbJournal m_journal = TuneDbJournal::Wal;
    std::recursive_mutex m_mutex;
};

template <class F> Status TuneDb::transaction(F&& body)
{
    std::lock_guard lock(m_mutex);
    // IMMEDIATE takes the write lock up front (waiting up to the busy timeout): a deferred transaction
    // that reads first could not upgrade while another writer holds the lock, and would fail at once.
    if (Status s = exec("BEGIN IMMEDIATE"); !s) return s;
    Status s = body();
    if (!s) {
        (void)exec("ROLLBACK"); // the error to report is the one above
        return s;
    }
    if (Status c = exec("COMMIT"); !c) {
        (void)exec("ROLLBACK");
        return c;
    }
    return Ok{};
}

} // namespace sassx::tune
