#pragma once
// The one context every panel observes: the open input, its kernels, the current kernel and its
// analysis, the variant tree with figures, the current variant's schedule and the selection. A thin
// asynchronous wrapper around the workspace (core/session/workspace.h): every checker, cubin and
// evaluator comes from there, so the GUI judges and measures exactly as the CLI and searches do.
//
// Long work (loading, disassembly + analysis, measuring, searches) runs as JobTracker jobs; results come back
// as queued calls on the session's thread, and a result whose job was cancelled or superseded is dropped.
#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/legality.h"
#include "core/rewrite/variant.h"
#include "core/session/evaluator_options.h"
#include "core/session/job_tracker.h"
#include "core/session/kernel_stalls.h"
#include "core/session/search_job.h"
#include "core/session/search_record.h"
#include "core/session/variant_record.h"
#include "core/session/workspace.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>
#include <vector>

namespace sassx {

namespace eval {
class Evaluator;
}

class Session : public QObject
{
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    // ---- input and kernel -------------------------------------------------------------------
    // Loads `path` in the background; when it holds one kernel (or `kernel` names one) the analysis
    // follows. Returns the job id. Signals: inputLoaded / loadFailed, then analysisReady / analysisFailed.
    quint64 openInput(const QString& path, const QString& arch = QStringLiteral("sm_90"),
                      const QString& kernel = {});
    quint64 selectKernel(const QString& name);
    void cancel(); // stops the running load/analysis (its result is dropped)
    bool isBusy() const { return m_busy; }

    // Options every workspace this session opens gets (line-table policy, evaluator choice).
    const WorkspaceOptions& workspaceOptions() const { return m_options; }
    void setEvaluatorOptions(const EvaluatorOptions& options);

    QString inputPath() const { return m_inputPath; }
    QString arch() const { return m_arch; }
    QString inputKind() const;
    // Keys of the input's kernels (Workspace::kernels(): the symbol, or "symbol@sm_80" for one copy
    // of several), and the entries a picker shows.
    QStringList kernelNames() const;
    std::vector<KernelEntry> kernelEntries() const;
    // The entry to offer first (the newest architecture's), -1 without an input.
    int defaultKernelEntry() const;
    // The current kernel's key (what selectKernel and session files take).
    QString kernelName() const { return m_kernel; }
    // The current kernel's symbol (what launch specs and reports name); empty before an analysis.
    QString kernelSymbol() const;
    std::shared_ptr<const KernelWorkspace> kernelWorkspace() const { return m_kernelWs; }
    std::shared_ptr<const KernelAnalysis> analysis() const;
    const LegalityChecker* checker() const;
    const Cubin* currentCubin() const;
    // What limits edits of the current kernel, in words (e.g. why nothing can move); said once.
    QStringList notices() const;

    QString launchSpecPath() const { return m_launchSpecPath; }
    void setLaunchSpecPath(const QString& path);

    // ---- variants -------------------------------------------------------------------------------
    const std::vector<VariantRecord>& variants() const { return m_variants; } // sorted by id; [0] original
    const VariantRecord* variant(int id) const;
    int currentVariantId() const { return m_current; }
    const VariantRecord* currentVariant() const { return variant(m_current); }
    void setCurrentVariant(int id);
    // The current variant resolved (identity when no kernel is open).
    const Schedule& schedule() const { return m_schedule; }
    Result<Schedule> scheduleOf(int id) const;
    std::vector<int> childrenOf(int id) const;

    // Creates a variant (id < 0: a fresh id). Returns its id.
    int addVariant(int parent, const QString& name, std::vector<Edit> edits, int id = -1);
    // Replaces (or recreates) a whole record, figures included: what undo needs to restore exactly.
    void restoreVariant(const VariantRecord& record);
    // Removes a variant; its children move to its parent (their edit lists are complete already).
    bool removeVariant(int id);
    void renameVariant(int id, const QString& name);
    // New edits drop the figures (they described another schedule).
    void setVariantEdits(int id, std::vector<Edit> edits);
    QString nextVariantName() const;
    int nextVariantId() const { return m_nextId; }

    // The checker's verdict on a variant's edits plus `extra`.
    LegalityReport checkEdits(int variantId, const std::vector<Edit>& extra) const;

    // ---- selection ----------------------------------------------------------------------------
    int selectedInstruction() const { return m_selected; } // original index, -1 none
    void setSelectedInstruction(int originalIndex);

    // ---- measuring ----------------------------------------------------------------------------
    // Measures with this evaluator instead of one made from the evaluator options (tests, tools).
    void setEvaluator(std::shared_ptr<eval::Evaluator> evaluator);
    // Empty when `variantId` can be measured now, else the reason in words.
    QString measureUnavailableReason(int variantId) const;
    quint64 measure(int variantId);
    // Samples where the warps of `variantId` wait (one launch, GPU only), queued with measurements;
    // stallsFinished or stallsFailed follow. The samples stay with the variant until its edits change.
    quint64 sampleStalls(int variantId);
    // Attaches samples read from `path` (a stall profile, or `sassx-cli stalls --json` output) to
    // `variantId`; false with the reason when they belong to another kernel or code.
    bool importStalls(int variantId, const QString& path, QString* error = nullptr);
    // A variant's samples mapped onto the kernel (per original instruction, block, reason).
    std::optional<KernelStalls> kernelStalls(int variantId) const;
    // Stops every queued and running measurement; each reports measureFailed("cancelled").
    void cancelMeasure();
    bool isMeasuring() const { return m_measureJobs.isRunning(); }
    // "gpu" or "estimate" and why, once the first measurement chose; empty before.
    QString evaluatorBackend() const { return m_evaluatorBackend; }
    QString evaluatorReason() const { return m_evaluatorReason; }

    // ---- searches -----------------------------------------------------------------------------
    // One search at a time (search_job.h) on the current kernel; finished runs are kept as records and
    // saved with the session. The panel connects to search() for the live stream.
    SearchJob* search() const { return m_search.get(); }
    // Empty when a search can start now, else why not (one line).
    QString searchUnavailableReason() const;
    // Starts a search of the current kernel with the session's launch spec and the session's evaluator
    // options (or `options`); outputs go to searchOutDir(config). Empty when it started, else why not.
    QString startSearch(const search::SearchConfig& config);
    QString startSearch(const search::SearchConfig& config, const EvaluatorOptions& options);
    // Continues the checkpointed run in `dir` (a killed or stopped one) on the current kernel; a budget
    // > 0 replaces the saved one. Empty when it started, else why not (one line).
    QString resumeSearch(const QString& dir, const EvaluatorOptions& options, int64_t budgetEvals = 0,
                         double budgetSeconds = 0.0);
    // searches/<date>-<algo>-<space> beside the session file (beside the autosave file before the
    // session has one); never an existing directory.
    QString searchOutDir(const search::SearchConfig& config) const;
    const std::vector<SearchRecord>& searches() const { return m_searches; }
    // The latest kept PPO run of this kernel whose policy (DIR/policy.pt) is still on disk, or null:
    // what the listing's policy suggestions come from.
    const SearchRecord* latestPolicyRun() const;
    // Makes evaluation `step` of kept search `record` (-1: the live or last run of search()) a variant
    // and the current one, so the listing and the diff show it; an existing variant with the same edits
    // is reused. Returns its id, or -1 with the reason in `error`.
    int openSearchEvaluation(int record, int step, QString* error = nullptr);

    // ---- persistence --------------------------------------------------------------------------
    QString sessionPath() const { return m_sessionPath; }
    bool save(const QString& path, QString* error = nullptr);
    // Reads a session file and reopens its input; the variants return once the analysis is ready
    // (sessionRestored). Returns false with `error` when the file cannot be read.
    bool openSession(const QString& path, QString* error = nullptr);
    // Reopens what autosave wrote for a session that had no file of its own (autosavePath()). The
    // restored session is still unsaved: it has no file, and it stays modified until saved somewhere.
    bool restoreAutosave(QString* error = nullptr);
    // An autosave worth offering at start: it exists, reads as a session, and names an input that exists.
    static bool autosaveAvailable(QString* input = nullptr);
    bool isModified() const { return m_modified; }
    void setAutosaveInterval(int ms);
    // Where autosave writes when the session has no file of its own yet.
    static QString autosavePath();

Q_SIGNALS:
    void busyChanged(bool busy);
    void inputLoaded();
    void loadFailed(const QString& message);
    void analysisReady();
    void analysisFailed(const QString& message);
    // The variant tree, finely, so views insert and remove rows instead of resetting (a search adds
    // thousands): variantAdded after a record is inserted; variantAboutToBeRemoved before one goes
    // (its children are moved to its parent first, each announced by variantReparented); and
    // variantsChanged only when the whole list is replaced (a new kernel, a restored session).
    void variantsChanged();
    void variantAdded(int id);
    void variantAboutToBeRemoved(int id);
    void variantRemoved(int id);
    void variantReparented(int id, int oldParent);
    void variantChanged(int id); // name, edits or figures of one variant
    void currentVariantChanged(int id);
    void scheduleChanged(); // the current variant's order or control bits
    void selectionChanged(int originalIndex);
    void measureStarted(int id);
    void measureFinished(int id);
    void measureFailed(int id, const QString& message);
    void stallsStarted(int id);
    void stallsFinished(int id);
    void stallsFailed(int id, const QString& message);
    void evaluatorChosen(const QString& backend, const QString& reason);
    // The list of kept searches was replaced (a new kernel, a restored session).
    void searchRecordsChanged();
    // A finished run joined the list at `index`; `bestVariant` is the variant made of its best, or -1
    // when nothing clearly beat the original.
    void searchRecorded(int index, int bestVariant);
    void searchFailed(const QString& message);
    void sessionRestored();
    void sessionRestoreFailed(const QString& message);
    void modifiedChanged(bool modified);
    void saved(const QString& path);

private:
    struct PendingSession;
    struct MeasureState;
    void setBusy(bool busy);
    void startAnalysis(std::shared_ptr<const Workspace> workspace, const QString& kernel);
    void resetVariants();
    void resetMeasureState();
    void recomputeSchedule();
    void markModified();
    void clearModified();
    void autosave();
    void applyPendingSession();
    bool attachStalls(int variantId, const std::vector<Edit>& edits,
                      const std::shared_ptr<const KernelWorkspace>& kernel, eval::StallProfile profile,
                      QString* error);
    void finishMeasure(int variantId, const std::vector<Edit>& edits,
                       const std::shared_ptr<const KernelWorkspace>& kernel,
                       const Result<VariantFigures>& figures);
    VariantRecord* mutableVariant(int id);
    void connectSearch();
    void finishSearch(const SearchJobResult& result);
    void resetSearches();

    JobTracker m_loadJobs{this, JobTracker::Policy::Supersede};
    JobTracker m_measureJobs{this, JobTracker::Policy::Queue};
    bool m_busy = false;

    WorkspaceOptions m_options;
    QString m_inputPath, m_arch = QStringLiteral("sm_90"), m_kernel, m_launchSpecPath, m_sessionPath;
    std::shared_ptr<const Workspace> m_workspace;
    std::shared_ptr<const KernelWorkspace> m_kernelWs;

    std::vector<VariantRecord> m_variants;
    int m_current = 0;
    int m_nextId = 1;
    Schedule m_schedule;
    int m_selected = -1;

    std::shared_ptr<eval::Evaluator> m_injectedEvaluator;
    // The evaluator of the current kernel and spec; only the measure thread touches its inside. A new
    // kernel, spec or evaluator replaces the holder, so a job still running keeps the one it started with.
    std::shared_ptr<MeasureState> m_measureState;
    QString m_evaluatorBackend, m_evaluatorReason;

    std::unique_ptr<SearchJob> m_search = std::make_unique<SearchJob>();
    std::vector<SearchRecord> m_searches;

    std::unique_ptr<PendingSession> m_pending;
    bool m_modified = false;
    bool m_fromAutosave = false; // the pending session is a restored autosave (applyPendingSession)
    QTimer m_autosave;
};

} // namespace sassx
