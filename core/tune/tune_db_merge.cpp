// Merging a Slurm task's own database into the tune's (docs/tune.md, "On a cluster"). SQLite must not be
// written from several hosts, so each array task records into a file of its own and the submitting
// process, the one writer of the tune's database, brings each task's runs in as that task ends. The
// task's file is attached to this connection, checked, and copied in one transaction: a refused or
// damaged file leaves this database as it was.
#include "core/tune/sqlite_statement.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_db_schema.h"

#include <sqlite3.h>

#include <filesystem>

namespace sassx::tune {

namespace {

// The schema name the task's file is attached under for the length of one merge.
constexpr const char* kAttachAs = "task";

// Why the task's file cannot be read, in one line: not SQLite, damaged, or SQLite's own words.
std::string unreadable(const std::string& taskPath, int rc, sqlite3* db)
{
    if ((rc & 0xff) == SQLITE_NOTADB) return taskPath + " is not a SQLite database";
    if ((rc & 0xff) == SQLITE_CORRUPT) return taskPath + " is damaged: " + sqlite3_errmsg(db);
    return "cannot read " + taskPath + ": " + sqlite3_errmsg(db);
}

} // namespace

Status TuneDb::checkTaskSchema(const std::string& taskPath)
{
    auto pragma = [&](const std::string& name, std::string* text, int64_t* value) -> Status {
        Stmt q(m_db, ("PRAGMA " + std::string(kAttachAs) + "." + name).c_str());
        const int rc = q.ok() ? q.step() : sqlite3_extended_errcode(m_db);
        if (rc != SQLITE_ROW) return makeError(unreadable(taskPath, rc, m_db));
        if (text) *text = q.text(0);
        if (value) *value = q.i64(0);
        return Ok{};
    };
    int64_t app = 0, version = 0;
    if (Status s = pragma("application_id", nullptr, &app); !s) return s;
    if (app != kTuneDbApplicationId) return makeError(taskPath + " is not a sassx tune database");
    if (Status s = pragma("user_version", nullptr, &version); !s) return s;
    if (version != kTuneDbVersion)
        return makeError(taskPath + " is a tune database of schema version " + std::to_string(version) +
                         "; this sassx reads version " + std::to_string(kTuneDbVersion));
    // A file cut short (a node that died mid-write, a copy that stopped) can still answer the pragmas
    // above, which live in its first page.
    std::string check;
    if (Status s = pragma("quick_check", &check, nullptr); !s) return s;
    if (check != "ok") return makeError(taskPath + " is damaged: " + check);
    return Ok{};
}

// One run of the task's file into this database; returns this database's id of the run.
Result<int64_t> TuneDb::mergeRun(int64_t taskRunId, TaskMerge& merged)
{
    auto fail = [&](const std::string& what) {
        return error("cannot merge run " + std::to_string(taskRunId) + " of the task's database: " + what);
    };
    // The same run: the same kernel into the same run directory.
    Stmt find(m_db, "SELECT r.id, tk.name FROM task.runs tr JOIN task.kernels tk ON tk.id = tr.kernel_id "
                    "LEFT JOIN main.kernels k ON k.name = tk.name LEFT JOIN main.runs r ON r.kernel_id = "
                    "k.id AND r.out_dir = tr.out_dir WHERE tr.id = ?1 ORDER BY r.id DESC LIMIT 1");
    find.bind(1, taskRunId);
    if (!find.ok() || find.step() != SQLITE_ROW) return fail("cannot read it");
    int64_t runId = find.isNull(0) ? 0 : find.i64(0);
    merged.kernels.push_back(find.text(1));
    if (runId == 0) {
        Stmt ins(m_db,
                 "INSERT INTO main.runs (kernel_id, status, out_dir, config, backend, started, updated) "
                 "SELECT k.id, tr.status, tr.out_dir, tr.config, tr.backend, tr.started, tr.updated "
                 "FROM task.runs tr JOIN task.kernels tk ON tk.id = tr.kernel_id JOIN main.kernels k "
                 "ON k.name = tk.name WHERE tr.id = ?1");
        ins.bind(1, taskRunId);
        if (!ins.ok() || !ins.done() || sqlite3_changes(m_db) != 1) return fail("cannot add it");
        runId = sqlite3_last_insert_rowid(m_db);
    }
    Stmt run(m_db, "UPDATE main.runs SET (device_id, status, config, backend, started, updated, owner, "
                   "resumed, evaluations, seconds, summary, error, report) = (SELECT d.id, tr.status, "
                   "tr.config, tr.backend, tr.started, tr.updated, tr.owner, tr.resumed, tr.evaluations, "
                   "tr.seconds, tr.summary, tr.error, tr.report FROM task.runs tr LEFT JOIN task.devices td "
                   "ON td.id = tr.device_id LEFT JOIN main.devices d ON d.name = td.name AND d.backend = "
                   "td.backend WHERE tr.id = ?2) WHERE id = ?1");
    run.bind(1, runId).bind(2, taskRunId);
    if (!run.ok() || !run.done()) return fail("cannot update it");
    Stmt drop(m_db, "DELETE FROM main.evaluations WHERE run_id = ?1");
    drop.bind(1, runId);
    if (!drop.ok() || !drop.done()) return fail("cannot replace its evaluations");
    Stmt evals(m_db,
               "INSERT INTO main.evaluations (run_id, step, seconds, base, kind, outcome, is_best, ok, "
               "speedup, low, high, rounds, noise_floor, source, failure, edits, json) SELECT ?1, step, "
               "seconds, base, kind, outcome, is_best, ok, speedup, low, high, rounds, noise_floor, "
               "source, failure, edits, json FROM task.evaluations WHERE run_id = ?2");
    evals.bind(1, runId).bind(2, taskRunId);
    if (!evals.ok() || !evals.done()) return fail("cannot copy its evaluations");
    merged.evaluations += sqlite3_changes(m_db);
    // A write-back is recorded only here (the submitter's --write-back): the task's copy of the best
    // never has one, and the Triton entry still holds what was written.
    std::string writtenBack;
    Stmt old(m_db, "SELECT written_back FROM main.bests WHERE run_id = ?1");
    old.bind(1, runId);
    if (old.ok() && old.step() == SQLITE_ROW) writtenBack = old.text(0);
    Stmt dropBest(m_db, "DELETE FROM main.bests WHERE run_id = ?1");
    dropBest.bind(1, runId);
    if (!dropBest.ok() || !dropBest.done()) return fail("cannot replace its best");
    Stmt best(m_db,
              "INSERT INTO main.bests (run_id, improved, speedup, low, high, rounds, noise_floor, source, "
              "verified, verification, edits, cubin, written_back) SELECT ?1, improved, speedup, low, "
              "high, rounds, noise_floor, source, verified, verification, edits, cubin, CASE WHEN "
              "written_back != '' THEN written_back ELSE ?3 END FROM task.bests WHERE run_id = ?2");
    best.bind(1, runId).bind(2, taskRunId).bind(3, writtenBack);
    if (!best.ok() || !best.done()) return fail("cannot copy its best");
    ++merged.runs;
    return runId;
}

Result<TaskMerge> TuneDb::mergeTaskDb(const std::string& taskPath)
{
    std::lock_guard lock(m_mutex);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(taskPath, ec)) return makeError(taskPath + ": no such file");
    Stmt attach(m_db, ("ATTACH DATABASE ?1 AS " + std::string(kAttachAs)).c_str());
    attach.bind(1, taskPath);
    if (!attach.ok() || !attach.done())
        return makeError(unreadable(taskPath, sqlite3_extended_errcode(m_db), m_db));
    struct Detach
    {
        TuneDb* db;
        ~Detach() { (void)db->exec("DETACH DATABASE " + std::string(kAttachAs)); }
    } detach{this};
    if (Status s = checkTaskSchema(taskPath); !s) return s.error();
    TaskMerge merged;
    Status s = transaction([&]() -> Status {
        // The task's plan is this tune's plan: its kernel rows (facts, or why one is skipped) win.
        if (Status k = exec("INSERT INTO main.kernels (name, spec, cubin, time_share, gpu_time_us, launches, "
                            "triton_entries, shares_note, skipped) SELECT name, spec, cubin, time_share, "
                            "gpu_time_us, launches, triton_entries, shares_note, skipped FROM task.kernels "
                            "WHERE true ON CONFLICT(name) DO UPDATE SET spec = excluded.spec, cubin = "
                            "excluded.cubin, time_share = excluded.time_share, gpu_time_us = "
                            "excluded.gpu_time_us, launches = excluded.launches, triton_entries = "
                            "excluded.triton_entries, shares_note = excluded.shares_note, skipped = "
                            "excluded.skipped");
            !k)
            return k;
        if (Status d = exec("INSERT OR IGNORE INTO main.devices (name, backend, first_seen) SELECT name, "
                            "backend, first_seen FROM task.devices");
            !d)
            return d;
        std::vector<int64_t> taskRuns;
        Stmt ids(m_db, "SELECT id FROM task.runs ORDER BY id");
        if (!ids.ok()) return error("cannot read the runs of " + taskPath);
        int rc;
        while ((rc = ids.step()) == SQLITE_ROW)
            taskRuns.push_back(ids.i64(0));
        if (rc != SQLITE_DONE) return error("cannot read the runs of " + taskPath);
        for (int64_t id : taskRuns)
            if (auto r = mergeRun(id, merged); !r) return r.error();
        return Ok{};
    });
    if (!s) return s.error();
    return merged;
}

} // namespace sassx::tune
