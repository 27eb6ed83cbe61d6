#include "core/tune/tune_runner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace sassx::tune {

namespace fs = std::filesystem;
using nlohmann::json;

DbBest bestFromReport(const json& report, const std::string& cubinPath)
{
    DbBest b;
    b.improved = report.value("improved", false);
    const json best = report.value("best", json::object());
    const json final = best.value("final", json::object());
    b.speedup = final.value("speedup", 1.0);
    b.low = final.value("low", b.speedup);
    b.high = final.value("high", b.speedup);
    b.rounds = final.value("rounds", 0);
    b.noiseFloor =
        final.value("noise_floor", report.value("baseline", json::object()).value("noise_floor", 0.0));
    b.source = final.value("source", report.value("baseline", json::object()).value("source", std::string()));
    const json v = report.value("verification", json::object());
    if (v.contains("correct") && v["correct"].is_boolean()) b.verified = v["correct"].get<bool>();
    b.verification = v.value("failure", v.value("note", std::string()));
    if (b.verification.empty() && b.verified)
        b.verification = *b.verified ? "correct on fresh inputs" : "wrong";
    b.edits = best.value("edits", json::array());
    b.cubin = cubinPath;
    return b;
}

namespace {

// Evaluations reach the database in batches: one transaction per evaluation would make the writers of a
// fast backend (the estimate) take turns on the lock more than they search.
class EvaluationSink
{
public:
    EvaluationSink(TuneDb& db, int64_t runId) : m_db(db), m_runId(runId) {}
    void add(const search::SearchEvaluation& e, double seconds)
    {
        m_pending.push_back(e);
        m_seconds = seconds;
        if (m_pending.size() >= 256 || std::chrono::steady_clock::now() - m_last > std::chrono::seconds(1))
            flush();
    }
    void flush()
    {
        m_last = std::chrono::steady_clock::now();
        if (m_pending.empty() || !m_error.empty()) return;
        if (Status s = m_db.addEvaluations(m_runId, m_pending, m_seconds); !s) m_error = s.message();
        m_pending.clear();
    }
    const std::string& error() const { return m_error; }

private:
    TuneDb& m_db;
    int64_t m_runId;
    std::vector<search::SearchEvaluation> m_pending;
    double m_seconds = 0.0;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
    std::string m_error;
};

// The run row this attempt records into, and whether it continues a checkpoint.
struct RunSlot
{
    int64_t id = 0;
    bool resume = false;
    int resumed = 0;
};

Result<RunSlot> claimRun(const TuneKernel& k, int64_t kernelId, const std::string& outDir,
                         const TuneRunOptions& options, TuneDb& db, const std::optional<DbRun>& latest)
{
    const std::string config = search::toJson(options.config).dump();
    const std::string backend(eval::backendName(options.workspace.evaluator.backend));
    RunSlot slot;
    std::error_code ec;
    if (fs::exists(fs::path(outDir) / "checkpoint.json", ec)) {
        auto saved = readSearchCheckpoint(outDir);
        if (!saved) return saved.error();
        if (latest) {
            slot.id = latest->id;
        } else {
            // The database was lost or replaced but the run's directory was not: adopt the run.
            auto id = db.startRun(kernelId, outDir, config, backend);
            if (!id) return id.error();
            slot.id = *id;
        }
        // What the checkpoint holds is what the run has done: drop later evaluations (made again on
        // resume) and write its history (a kill may come between the checkpoint and the database).
        if (Status s = db.resumeRun(slot.id, saved->evaluations()); !s) return s.error();
        if (Status s = db.addEvaluations(slot.id, saved->history, saved->seconds); !s) return s.error();
        slot.resume = true;
        slot.resumed = latest ? latest->resumed + 1 : 1;
        return slot;
    }
    if (latest) {
        if (Status s = db.restartRun(latest->id, config, backend); !s) return s.error();
        slot.id = latest->id;
        return slot;
    }
    auto id = db.startRun(kernelId, outDir, config, backend);
    if (!id) return id.error();
    slot.id = *id;
    return slot;
}

// A kernel an earlier tune finished: how it ended, not run again.
KernelProgress doneProgress(TuneDb& db, const DbRun& run)
{
    KernelProgress p;
    p.kernel = run.kernel;
    p.state = KernelState::Done;
    p.evaluations = run.evaluations;
    p.resumed = run.resumed;
    p.fraction = 1.0;
    p.message = run.summary;
    if (auto best = db.best(run.id); best && *best && (*best)->improved) p.bestSpeedup = (*best)->speedup;
    return p;
}

SearchRunOptions searchRunOptions(const TuneRunOptions& options, const std::string& outDir, bool resume)
{
    SearchRunOptions ro;
    ro.config = options.config;
    ro.outDir = outDir;
    ro.resume = resume;
    ro.plan = options.measure;
    ro.control.checkpointEvery = std::max(1, options.checkpointEvery);
    ro.control.stop = options.stop;
    return ro;
}

} // namespace

Result<KernelProgress> tuneKernel(const TuneKernel& k, const std::string& sharesNote,
                                  const TuneRunOptions& options, TuneDb& db, const ProgressFn& progress)
{
    KernelProgress p;
    p.kernel = k.name;
    auto report = [&] {
        if (progress) progress(p);
    };
    auto kernelId = db.upsertKernel(k, sharesNote);
    if (!kernelId) return kernelId.error();
    auto latest = db.latestRun(k.name);
    if (!latest) return latest.error();
    if (*latest && (*latest)->status == RunStatus::Finished) {
        p = doneProgress(db, **latest);
        report();
        return p;
    }
    // Two tunes of one directory at once would share the run's checkpoint: the second leaves it alone.
    if (*latest && (*latest)->status == RunStatus::Running && TuneDb::ownerAlive((*latest)->owner))
        return makeError(
            "kernel " + k.name + " is being tuned by process " +
            (*latest)->owner.substr((*latest)->owner.rfind(':') + 1) +
            " on this machine (run one tune of a directory at a time, or --task-index per process)");
    const std::string outDir = (fs::path(options.runsDir) / k.name).string();
    auto slot = claimRun(k, *kernelId, outDir, options, db, *latest);
    if (!slot) return slot.error();
    const int64_t runId = slot->id;
    p.resumed = slot->resumed;
    auto failed = [&](const std::string& message) -> Result<KernelProgress> {
        (void)db.failRun(runId, message); // the message reaches the user either way
        p.state = KernelState::Failed;
        p.message = message;
        report();
        return makeError(message);
    };

    p.state = KernelState::Running;
    p.phase = "opening";
    report();
    auto run = openSearchRun(k.specPath, options.workspace);
    if (!run) return failed(run.message());
    p.backend = eval::backendName((*run)->choice().backend);
    const SearchRunOptions ro = searchRunOptions(options, outDir, slot->resume);
    EvaluationSink sink(db, runId);
    bool deviceKnown = false;
    search::SearchCallbacks callbacks;
    callbacks.onEvaluation = [&](const search::SearchEvaluation& e, const search::SearchStatus& s) {
        if (!deviceKnown) {
            deviceKnown = true;
            if (const auto* baseline = (*run)->kernelEvaluator().baseline())
                (void)db.setDevice(runId,
                                   baseline->source.device.empty() ? baseline->source.label()
                                                                   : baseline->source.device,
                                   eval::backendName((*run)->choice().backend));
        }
        sink.add(e, s.seconds);
        p.evaluations = s.evaluations;
        p.bestSpeedup = s.bestSpeedup;
        p.phase = s.phase;
        p.fraction = search::budgetFraction(options.config, s.evaluations, s.seconds);
        report();
    };
    callbacks.onCheckpoint = [&](const search::SearchState&) { sink.flush(); };
    callbacks.onPhase = [&](const std::string& phase) {
        p.phase = phase;
        report();
    };
    auto result = (*run)->run(ro, callbacks);
    sink.flush();
    if (!sink.error().empty()) return failed(sink.error());
    if (!result) return failed(result.message());
    const bool finished = result->json.value("finished", true);
    const DbBest best = bestFromReport(result->json, result->bestCubinPath);
    if (Status s =
            db.finishRun(runId, finished ? RunStatus::Finished : RunStatus::Stopped, result->json, best);
        !s)
        return failed(s.message());
    p.state = finished ? KernelState::Finished : KernelState::Stopped;
    p.evaluations = result->json.value("evaluations", p.evaluations);
    p.searchSeconds = result->json.value("seconds", 0.0);
    p.bestSpeedup = best.improved ? best.speedup : 1.0;
    p.fraction = finished ? 1.0 : p.fraction;
    p.message = result->summary;
    report();
    return p;
}

} // namespace sassx::tune
