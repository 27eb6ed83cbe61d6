#pragma once
// The one context every panel observes: the open input, its kernels, the current kernel and its
// analysis, the variant tree with figures, the current variant's schedule and the selection. QtCore
// only (no widgets): the GUI, tests and a future search runner all drive the same object.
//
// Long work (loading, disassembly + analysis, measuring) runs on the session's own thread pools as
// jobs with an id and a stop flag; results come back as queued calls on the session's thread and a
// result whose id is no longer the latest is dropped, so a slow old load can never overwrite a new one.
#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/legality.h"
#include "core/rewrite/variant.h"
#include "core/session/input_loader.h"
#include "core/session/variant_record.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace sassx {

namespace eval {
class Evaluator;
}

class Session : public QObject
{
    Q_OBJECT
public:
    // Turns a schedule of the current kernel into the bytes of a whole tuned cubin (core/rewrite's
    // cubin writer once it exists). Called on a worker thread.
    using CubinBuilder =
        std::function<Result<std::vector<uint8_t>>(const Cubin& original, const std::string& kernel,
                                                   const KernelAnalysis& analysis, const Schedule& schedule)>;
    // Evaluates a schedule directly, without a cubin, when the evaluator can (the estimate backend's fast
    // path); returns nothing when it cannot. Called on the measure thread.
    using ScheduleEvaluate =
        std::function<std::optional<eval::EvalResult>(eval::Evaluator& evaluator, const Schedule& schedule)>;
    // Creates the evaluator on first use (starting GPU workers takes seconds: worker thread).
    using EvaluatorFactory = std::function<Result<std::shared_ptr<eval::Evaluator>>()>;

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

    QString inputPath() const { return m_inputPath; }
    QString arch() const { return m_arch; }
    QString inputKind() const;
    QStringList kernelNames() const;
    QString kernelName() const { return m_kernel; }
    std::shared_ptr<const KernelAnalysis> analysis() const { return m_analysis; }
    const LegalityChecker* checker() const { return m_checker.get(); }
    const Cubin* currentCubin() const;

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
    void setEvaluator(std::shared_ptr<eval::Evaluator> evaluator);
    void setEvaluatorFactory(EvaluatorFactory factory);
    void setCubinBuilder(CubinBuilder builder);
    bool hasCubinBuilder() const { return bool(m_cubinBuilder); }
    void setScheduleEvaluate(ScheduleEvaluate evaluate);
    // Empty when `variantId` can be measured now, else the reason in words.
    QString measureUnavailableReason(int variantId) const;
    quint64 measure(int variantId);
    bool isMeasuring() const { return m_measuring > 0; }

    // ---- persistence --------------------------------------------------------------------------
    QString sessionPath() const { return m_sessionPath; }
    bool save(const QString& path, QString* error = nullptr);
    // Reads a session file and reopens its input; the variants return once the analysis is ready
    // (sessionRestored). Returns false with `error` when the file cannot be read.
    bool openSession(const QString& path, QString* error = nullptr);
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
    void variantsChanged();      // structure: added, removed, reparented
    void variantChanged(int id); // name, edits or figures of one variant
    void currentVariantChanged(int id);
    void scheduleChanged(); // the current variant's order or control bits
    void selectionChanged(int originalIndex);
    void measureStarted(int id);
    void measureFinished(int id);
    void measureFailed(int id, const QString& message);
    void sessionRestored();
    void sessionRestoreFailed(const QString& message);
    void modifiedChanged(bool modified);
    void saved(const QString& path);

private:
    struct PendingSession;
    void setBusy(bool busy);
    void startAnalysis(quint64 job, std::shared_ptr<std::atomic_bool> stop, int cubinIndex,
                       const QString& kernel);
    void resetVariants();
    void recomputeSchedule();
    void markModified();
    void autosave();
    void applyPendingSession();
    int cubinIndexOf(const QString& kernel) const;
    VariantRecord* mutableVariant(int id);

    QThreadPool m_pool;        // load + analysis
    QThreadPool m_measurePool; // one at a time: evaluators are not re-entrant
    std::atomic<quint64> m_lastJob{0};
    quint64 m_loadJob = 0;
    std::shared_ptr<std::atomic_bool> m_stop;
    bool m_busy = false;

    QString m_inputPath, m_arch = QStringLiteral("sm_90"), m_kernel, m_launchSpecPath, m_sessionPath;
    std::shared_ptr<const LoadedInput> m_input;
    std::shared_ptr<const KernelAnalysis> m_analysis;
    std::shared_ptr<const LegalityChecker> m_checker;

    std::vector<VariantRecord> m_variants;
    int m_current = 0;
    int m_nextId = 1;
    Schedule m_schedule;
    int m_selected = -1;

    std::shared_ptr<eval::Evaluator> m_evaluator;
    EvaluatorFactory m_evaluatorFactory;
    CubinBuilder m_cubinBuilder;
    ScheduleEvaluate m_scheduleEvaluate;
    int m_measuring = 0;
    bool m_baselineSet = false;

    std::unique_ptr<PendingSession> m_pending;
    bool m_modified = false;
    QTimer m_autosave;
};

} // namespace sassx
