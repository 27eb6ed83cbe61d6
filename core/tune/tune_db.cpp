#include "core/tune/tune_db.h"

#include "core/common/text_format.h"
#include "core/tune/sqlite_statement.h"
#include "core/tune/tune_db_schema.h"
#include "core/tune/tune_plan.h"

#include <sqlite3.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>
#include <unistd.h>

namespace sassx::tune {

using nlohmann::json;

namespace {

constexpr int kBusyTimeoutMs = 60000;

json parseOr(const std::string& text, json fallback)
{
    json j = json::parse(text, nullptr, false);
    return j.is_discarded() ? fallback : j;
}

// Some lock conflicts return SQLITE_BUSY without waiting in the busy handler: a journal-mode change or
// the first reads while another connection creates the schema or switches the file to WAL
// (sqlite.org/rescode.html#busy). Those are retried here until the same timeout.
template <class F> int retryBusy(F&& attempt)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (;;) {
        const int rc = attempt();
        if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
            std::chrono::steady_clock::now() > deadline)
            return rc;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

} // namespace

Error TuneDb::error(const std::string& what) const
{
    return makeError(m_path + ": " + what + ": " + sqlite3_errmsg(m_db));
}

std::string TuneDb::journalPragma() const
{
    return m_journal == TuneDbJournal::Wal ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode=DELETE";
}

Status TuneDb::exec(const std::string& sql)
{
    char* message = nullptr;
    const int rc = retryBusy([&] {
        sqlite3_free(message);
        message = nullptr;
        return sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &message);
    });
    if (rc != SQLITE_OK) {
        const std::string m = message ? message : sqlite3_errmsg(m_db);
        sqlite3_free(message);
        return makeError(m_path + ": " + m);
    }
    return Ok{};
}

Result<std::unique_ptr<TuneDb>> TuneDb::open(const std::string& path, TuneDbJournal journal)
{
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(
        path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const std::string m = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
        sqlite3_close(raw);
        return makeError("cannot open the database " + path + ": " + m);
    }
    std::unique_ptr<TuneDb> db(new TuneDb(raw, path, journal));
    sqlite3_busy_timeout(raw, kBusyTimeoutMs);
    if (Status s = db->checkSchema(); !s) return s.error();
    return db;
}

Status TuneDb::probe(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return makeError(path + ": no such file");
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
    if (rc != SQLITE_OK) return makeError("cannot open the database " + path + ": " + sqlite3_errstr(rc));
    sqlite3_busy_timeout(raw, kBusyTimeoutMs);
    auto pragmaInt = [&](const char* sql) -> Result<int64_t> {
        int64_t value = 0;
        const int step = retryBusy([&] {
            Stmt q(raw, sql);
            if (!q.ok()) return sqlite3_errcode(raw);
            const int r = q.step();
            value = r == SQLITE_ROW ? q.i64(0) : 0;
            return r == SQLITE_ROW ? SQLITE_OK : r;
        });
        if (step == SQLITE_NOTADB) return makeError(path + " is not a SQLite database");
        if (step != SQLITE_OK) return makeError(path + ": cannot read it: " + sqlite3_errmsg(raw));
        return value;
    };
    auto app = pragmaInt("PRAGMA application_id");
    if (!app) return app.error();
    auto version = pragmaInt("PRAGMA user_version");
    if (!version) return version.error();
    if (*app != kTuneDbApplicationId)
        return makeError(path + " is a SQLite database of another program, not a sassx tune database");
    if (*version != kTuneDbVersion)
        return makeError(path + " is a tune database of schema version " + std::to_string(*version) +
                         "; this sassx reads version " + std::to_string(kTuneDbVersion));
    return Ok{};
}

TuneDb::~TuneDb()
{
    sqlite3_close(m_db);
}

Status TuneDb::checkSchema()
{
    std::lock_guard lock(m_mutex);
    auto pragmaInt = [&](const char* sql) -> Result<int64_t> {
        int64_t value = 0;
        const int rc = retryBusy([&] {
            Stmt q(m_db, sql);
            if (!q.ok()) return sqlite3_errcode(m_db);
            const int step = q.step();
            value = step == SQLITE_ROW ? q.i64(0) : 0;
            return step == SQLITE_ROW ? SQLITE_OK : step;
        });
        if (rc == SQLITE_NOTADB) return error("not a SQLite database");
        if (rc != SQLITE_OK) return error("cannot read it");
        return value;
    };
    auto version = pragmaInt("PRAGMA user_version");
    if (!version) return version.error();
    auto app = pragmaInt("PRAGMA application_id");
    if (!app) return app.error();
    if (*app != 0 && *app != kTuneDbApplicationId)
        return makeError(m_path + " is a SQLite database of another program, not a sassx tune database");
    if (*version == 0) {
        // Another program's database is refused before anything is written to it (WAL mode included):
        // bad input loses nothing. One read transaction, so that a schema another process creates
        // meanwhile (in a transaction of its own) is seen whole or not at all.
        int64_t appNow = 0, versionNow = 0, tables = 0;
        const int rc = retryBusy([&] {
            if (sqlite3_exec(m_db, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK)
                return sqlite3_errcode(m_db);
            int result = SQLITE_OK;
            for (const auto& [sql, out] :
                 {std::pair{"PRAGMA application_id", &appNow}, std::pair{"PRAGMA user_version", &versionNow},
                  std::pair{"SELECT count(*) FROM sqlite_master", &tables}}) {
                Stmt q(m_db, sql);
                const int step = q.ok() ? q.step() : sqlite3_errcode(m_db);
                if (step != SQLITE_ROW) {
                    result = step;
                    break;
                }
                *out = q.i64(0);
            }
            sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr);
            return result;
        });
        if (rc == SQLITE_NOTADB) return error("not a SQLite database");
        if (rc != SQLITE_OK) return error("cannot read the schema");
        if (tables != 0 && appNow != kTuneDbApplicationId)
            return makeError(m_path + " is a SQLite database of another program, not a sassx tune database");
        version = versionNow;
    }
    if (*version == 0) {
        // New, or being created by another process right now: create inside the write lock, after
        // looking again.
        if (Status s = exec(journalPragma()); !s) return s;
        Status created = transaction([&]() -> Status {
            auto again = pragmaInt("PRAGMA user_version");
            if (!again) return again.error();
            if (*again != 0) return Ok{};
            Stmt tables(m_db, "SELECT count(*) FROM sqlite_master");
            if (!tables.ok() || tables.step() != SQLITE_ROW) return error("cannot read the schema");
            if (tables.i64(0) != 0)
                return makeError(m_path +
                                 " is a SQLite database of another program, not a sassx tune database");
            if (Status s = exec(kTuneDbSchema); !s) return s;
            return exec("PRAGMA application_id=" + std::to_string(kTuneDbApplicationId) +
                        "; PRAGMA user_version=" + std::to_string(kTuneDbVersion));
        });
        if (!created) return created;
        version = pragmaInt("PRAGMA user_version");
        if (!version) return version.error();
    }
    if (*version != kTuneDbVersion)
        return makeError(m_path + " is a tune database of schema version " + std::to_string(*version) +
                         "; this sassx reads version " + std::to_string(kTuneDbVersion) +
                         " (move it aside or give another --db)");
    // NORMAL is durable in WAL mode; with a rollback journal only FULL survives a power loss whole.
    const std::string sync = m_journal == TuneDbJournal::Wal ? "NORMAL" : "FULL";
    if (Status s = exec(journalPragma() + "; PRAGMA synchronous=" + sync + "; PRAGMA foreign_keys=ON"); !s)
        return s;
    return Ok{};
}

Result<int64_t> TuneDb::upsertKernel(const TuneKernel& k, const std::string& sharesNote)
{
    int64_t id = 0;
    Status s = transaction([&]() -> Status {
        Stmt q(m_db,
               "INSERT INTO kernels (name, spec, cubin, time_share, gpu_time_us, launches, triton_entries, "
               "shares_note, skipped) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, '') ON CONFLICT(name) DO "
               "UPDATE SET spec = ?2, cubin = ?3, time_share = ?4, gpu_time_us = ?5, launches = ?6, "
               "triton_entries = ?7, shares_note = ?8, skipped = ''");
        q.bind(1, k.name).bind(2, k.specPath).bind(3, k.cubinPath).bind(4, k.timeShare).bind(5, k.gpuTimeUs);
        q.bind(6, k.launches).bind(7, json(k.tritonEntries).dump()).bind(8, sharesNote);
        if (!q.ok() || !q.done()) return error("cannot record kernel " + k.name);
        Stmt idq(m_db, "SELECT id FROM kernels WHERE name = ?1");
        idq.bind(1, k.name);
        if (!idq.ok() || idq.step() != SQLITE_ROW) return error("cannot read kernel " + k.name);
        id = idq.i64(0);
        return Ok{};
    });
    if (!s) return s.error();
    return id;
}

Status TuneDb::recordSkipped(const std::string& name, const std::string& reason)
{
    return transaction([&]() -> Status {
        Stmt q(m_db,
               "INSERT INTO kernels (name, spec, cubin, time_share, gpu_time_us, launches, triton_entries, "
               "shares_note, skipped) VALUES (?1, '', '', 0, 0, 0, '[]', '', ?2) ON CONFLICT(name) DO "
               "UPDATE SET skipped = ?2");
        q.bind(1, name).bind(2, reason.empty() ? std::string("skipped") : reason);
        if (!q.ok() || !q.done()) return error("cannot record kernel " + name);
        return Ok{};
    });
}

Result<std::vector<DbKernel>> TuneDb::kernels()
{
    std::lock_guard lock(m_mutex);
    Stmt q(m_db,
           "SELECT id, name, spec, cubin, time_share, gpu_time_us, launches, triton_entries, shares_note, "
           "skipped FROM kernels ORDER BY id");
    if (!q.ok()) return error("cannot read kernels");
    std::vector<DbKernel> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        DbKernel k{q.i64(0), q.text(1), q.text(2), q.text(3), q.f64(4),
                   q.f64(5), q.i64(6),  {},        q.text(8), q.text(9)};
        for (const json& e : parseOr(q.text(7), json::array()))
            if (e.is_string()) k.tritonEntries.push_back(e.get<std::string>());
        out.push_back(std::move(k));
    }
    if (rc != SQLITE_DONE) return error("cannot read kernels");
    return out;
}

Result<int64_t> TuneDb::startRun(int64_t kernelId, const std::string& outDir, const std::string& config,
                                 const std::string& backend)
{
    int64_t id = 0;
    Status s = transaction([&]() -> Status {
        const std::string now = utcNowIso8601();
        Stmt q(m_db,
               "INSERT INTO runs (kernel_id, status, out_dir, config, backend, started, updated, owner) "
               "VALUES (?1, ?7, ?2, ?3, ?4, ?5, ?5, ?6)");
        q.bind(1, kernelId)
            .bind(2, outDir)
            .bind(3, config)
            .bind(4, backend)
            .bind(5, now)
            .bind(6, processOwner())
            .bind(7, runStatusName(RunStatus::Running));
        if (!q.ok() || !q.done()) return error("cannot record a run");
        id = sqlite3_last_insert_rowid(m_db);
        return Ok{};
    });
    if (!s) return s.error();
    return id;
}

namespace {

const char* const kRunColumns =
    "SELECT r.id, r.kernel_id, k.name, r.status, r.out_dir, r.config, r.backend, coalesce(d.name, ''), "
    "r.started, r.updated, r.resumed, r.evaluations, r.seconds, r.summary, r.error, r.report, r.owner "
    "FROM runs r JOIN kernels k ON k.id = r.kernel_id LEFT JOIN devices d ON d.id = r.device_id ";

// The run of the current row; a status the table does not know (another program wrote it) is refused.
Result<DbRun> runFrom(const Stmt& q)
{
    DbRun r;
    r.id = q.i64(0);
    r.kernelId = q.i64(1);
    r.kernel = q.text(2);
    auto status = parseRunStatus(q.text(3));
    if (!status)
        return makeError("run " + std::to_string(r.id) + " of " + r.kernel + ": " + status.message());
    r.status = *status;
    r.outDir = q.text(4);
    r.config = q.text(5);
    r.backend = q.text(6);
    r.device = q.text(7);
    r.started = q.text(8);
    r.updated = q.text(9);
    r.resumed = int(q.i64(10));
    r.evaluations = q.i64(11);
    r.seconds = q.f64(12);
    r.summary = q.text(13);
    r.error = q.text(14);
    r.report = q.isNull(15) ? json() : parseOr(q.text(15), json());
    r.owner = q.text(16);
    return r;
}

} // namespace

Result<std::optional<DbRun>> TuneDb::latestRun(const std::string& kernel)
{
    std::lock_guard lock(m_mutex);
    Stmt q(m_db, (std::string(kRunColumns) + "WHERE k.name = ?1 ORDER BY r.id DESC LIMIT 1").c_str());
    q.bind(1, kernel);
    if (!q.ok()) return error("cannot read runs");
    const int rc = q.step();
    if (rc == SQLITE_ROW) {
        auto run = runFrom(q);
        if (!run) return makeError(m_path + ": " + run.message());
        return std::optional<DbRun>(std::move(*run));
    }
    if (rc != SQLITE_DONE) return error("cannot read runs");
    return std::optional<DbRun>();
}

Result<std::vector<DbRun>> TuneDb::runs()
{
    std::lock_guard lock(m_mutex);
    Stmt q(m_db, (std::string(kRunColumns) + "ORDER BY k.id, r.id").c_str());
    if (!q.ok()) return error("cannot read runs");
    std::vector<DbRun> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        auto run = runFrom(q);
        if (!run) return makeError(m_path + ": " + run.message());
        out.push_back(std::move(*run));
    }
    if (rc != SQLITE_DONE) return error("cannot read runs");
    return out;
}

Status TuneDb::resumeRun(int64_t runId, int64_t keptSteps)
{
    return transaction([&]() -> Status {
        Stmt del(m_db, "DELETE FROM evaluations WHERE run_id = ?1 AND step >= ?2");
        del.bind(1, runId).bind(2, keptSteps);
        if (!del.ok() || !del.done()) return error("cannot trim the run's evaluations");
        Stmt q(m_db, "UPDATE runs SET status = ?4, resumed = resumed + 1, error = '', updated = ?2, "
                     "owner = ?3, "
                     "evaluations = (SELECT count(*) FROM evaluations WHERE run_id = ?1) WHERE id = ?1");
        q.bind(1, runId).bind(2, utcNowIso8601()).bind(3, processOwner());
        q.bind(4, runStatusName(RunStatus::Running));
        if (!q.ok() || !q.done()) return error("cannot mark the run resumed");
        Stmt b(m_db, "DELETE FROM bests WHERE run_id = ?1");
        b.bind(1, runId);
        if (!b.ok() || !b.done()) return error("cannot clear the run's best");
        return Ok{};
    });
}

Status TuneDb::restartRun(int64_t runId, const std::string& config, const std::string& backend)
{
    return transaction([&]() -> Status {
        for (const char* sql :
             {"DELETE FROM evaluations WHERE run_id = ?1", "DELETE FROM bests WHERE run_id = ?1"}) {
            Stmt del(m_db, sql);
            del.bind(1, runId);
            if (!del.ok() || !del.done()) return error("cannot clear the run");
        }
        Stmt q(m_db, "UPDATE runs SET status = ?6, config = ?2, backend = ?3, updated = ?4, owner = ?5, "
                     "evaluations = 0, seconds = 0, error = '', summary = '', report = NULL WHERE id = ?1");
        q.bind(1, runId).bind(2, config).bind(3, backend).bind(4, utcNowIso8601()).bind(5, processOwner());
        q.bind(6, runStatusName(RunStatus::Running));
        if (!q.ok() || !q.done()) return error("cannot restart the run");
        return Ok{};
    });
}

Status TuneDb::setDevice(int64_t runId, const std::string& device, const std::string& backend)
{
    return transaction([&]() -> Status {
        Stmt ins(m_db, "INSERT OR IGNORE INTO devices (name, backend, first_seen) VALUES (?1, ?2, ?3)");
        ins.bind(1, device).bind(2, backend).bind(3, utcNowIso8601());
        if (!ins.ok() || !ins.done()) return error("cannot record the device");
        Stmt q(m_db, "UPDATE runs SET backend = ?3, device_id = (SELECT id FROM devices WHERE name = ?2 AND "
                     "backend = ?3) WHERE id = ?1");
        q.bind(1, runId).bind(2, device).bind(3, backend);
        if (!q.ok() || !q.done()) return error("cannot record the run's device");
        return Ok{};
    });
}

Status TuneDb::addEvaluations(int64_t runId, const std::vector<search::SearchEvaluation>& evaluations,
                              double seconds)
{
    return transaction([&]() -> Status {
        Stmt q(m_db,
               "INSERT OR REPLACE INTO evaluations (run_id, step, seconds, base, kind, outcome, is_best, ok, "
               "speedup, low, high, rounds, noise_floor, source, failure, edits, json) VALUES "
               "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)");
        if (!q.ok()) return error("cannot record evaluations");
        for (const search::SearchEvaluation& e : evaluations) {
            const json j = search::toJson(e);
            const search::SpeedupFigures& f = e.figures;
            q.bind(1, runId)
                .bind(2, int64_t(e.step))
                .bind(3, e.seconds)
                .bind(4, int64_t(e.base))
                .bind(5, e.kind);
            q.bind(6, search::outcomeName(e.outcome)).bind(7, int64_t(e.best)).bind(8, int64_t(f.ok));
            q.bind(9, f.speedup).bind(10, f.low).bind(11, f.high).bind(12, int64_t(f.rounds));
            q.bind(13, f.noiseFloor).bind(14, f.source.label());
            q.bind(15, f.failureKind.empty() ? f.failure : f.failureKind + ": " + f.failure);
            q.bind(16, j.value("edits", json::array()).dump()).bind(17, j.dump());
            if (!q.done()) return error("cannot record evaluation " + std::to_string(e.step));
            q.reset();
        }
        Stmt r(m_db, "UPDATE runs SET evaluations = (SELECT count(*) FROM evaluations WHERE run_id = ?1), "
                     "seconds = max(seconds, ?2), updated = ?3 WHERE id = ?1");
        r.bind(1, runId).bind(2, seconds).bind(3, utcNowIso8601());
        if (!r.ok() || !r.done()) return error("cannot update the run");
        return Ok{};
    });
}

Result<std::vector<search::SearchEvaluation>> TuneDb::evaluations(int64_t runId)
{
    std::lock_guard lock(m_mutex);
    Stmt q(m_db, "SELECT json FROM evaluations WHERE run_id = ?1 ORDER BY step");
    q.bind(1, runId);
    if (!q.ok()) return error("cannot read evaluations");
    std::vector<search::SearchEvaluation> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) {
        auto e = search::evaluationFromJson(parseOr(q.text(0), json()));
        if (!e)
            return makeError(m_path + ": evaluation of run " + std::to_string(runId) + ": " + e.message());
        out.push_back(std::move(*e));
    }
    if (rc != SQLITE_DONE) return error("cannot read evaluations");
    return out;
}

Result<int64_t> TuneDb::evaluationCount(int64_t runId)
{
    std::lock_guard lock(m_mutex);
    Stmt q(m_db, "SELECT count(*) FROM evaluations WHERE run_id = ?1");
    q.bind(1, runId);
    if (!q.ok() || q.step() != SQLITE_ROW) return error("cannot count evaluations");
    return q.i64(0);
}

Status TuneDb::finishRun(int64_t runId, RunStatus status, const json& report,
                         const std::optional<DbBest>& best)
{
    if (status != RunStatus::Finished && status != RunStatus::Stopped)
        return makeError("a run ends finished or stopped, not " + runStatusName(status));
    return transaction([&]() -> Status {
        Stmt q(m_db, "UPDATE runs SET status = ?2, report = ?3, summary = ?4, updated = ?5, error = '', "
                     "seconds = max(seconds, ?6) WHERE id = ?1");
        q.bind(1, runId)
            .bind(2, runStatusName(status))
            .bind(3, report.dump())
            .bind(4, report.value("summary", std::string()));
        q.bind(5, utcNowIso8601()).bind(6, report.value("seconds", 0.0));
        if (!q.ok() || !q.done()) return error("cannot finish the run");
        if (!best) return Ok{};
        Stmt b(m_db,
               "INSERT OR REPLACE INTO bests (run_id, improved, speedup, low, high, rounds, noise_floor, "
               "source, verified, verification, edits, cubin, written_back) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
               "?7, ?8, ?9, ?10, ?11, ?12, ?13)");
        b.bind(1, runId).bind(2, int64_t(best->improved)).bind(3, best->speedup).bind(4, best->low);
        b.bind(5, best->high).bind(6, int64_t(best->rounds)).bind(7, best->noiseFloor).bind(8, best->source);
        if (best->verified)
            b.bind(9, int64_t(*best->verified));
        else
            b.bindNull(9);
        b.bind(10, best->verification).bind(11, best->edits.dump()).bind(12, best->cubin);
        b.bind(13, best->writtenBack);
        if (!b.ok() || !b.done()) return error("cannot record the run's best");
        return Ok{};
    });
}

Status TuneDb::failRun(int64_t runId, const std::string& message)
{
    return transaction([&]() -> Status {
        Stmt q(m_db, "UPDATE runs SET status = ?4, error = ?2, updated = ?3 WHERE id = ?1");
        q.bind(1, runId).bind(2, message).bind(3, utcNowIso8601()).bind(4, runStatusName(RunStatus::Failed));
        if (!q.ok() || !q.done()) return error("cannot record the failure");
        return Ok{};
    });
}

Result<std::optional<DbBest>> TuneDb::best(int64_t runId)
{
    std::lock_guard lock(m_mutex);
    Stmt q(m_db, "SELECT improved, speedup, low, high, rounds, noise_floor, source, verified, verification, "
                 "edits, cubin, written_back FROM bests WHERE run_id = ?1");
    q.bind(1, runId);
    if (!q.ok()) return error("cannot read bests");
    const int rc = q.step();
    if (rc == SQLITE_DONE) return std::optional<DbBest>();
    if (rc != SQLITE_ROW) return error("cannot read bests");
    DbBest b;
    b.runId = runId;
    b.improved = q.i64(0) != 0;
    b.speedup = q.f64(1);
    b.low = q.f64(2);
    b.high = q.f64(3);
    b.rounds = int(q.i64(4));
    b.noiseFloor = q.f64(5);
    b.source = q.text(6);
    if (!q.isNull(7)) b.verified = q.i64(7) != 0;
    b.verification = q.text(8);
    b.edits = parseOr(q.text(9), json::array());
    b.cubin = q.text(10);
    b.writtenBack = q.text(11);
    return std::optional<DbBest>(std::move(b));
}

Status TuneDb::setWrittenBack(int64_t runId, const std::string& entry)
{
    return transaction([&]() -> Status {
        Stmt q(m_db, "UPDATE bests SET written_back = ?2 WHERE run_id = ?1");
        q.bind(1, runId).bind(2, entry);
        if (!q.ok() || !q.done()) return error("cannot record the write-back");
        return Ok{};
    });
}

} // namespace sassx::tune
