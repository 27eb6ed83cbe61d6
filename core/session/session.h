#pragma once
// The GUI's session: the open input, its kernels and the current kernel's analysis, and the parts that
// hold everything made on that kernel, each a QObject with its own signals (docs/architecture.md, "The
// GUI's session"):
//   VariantTree   the variants, the current one's schedule and the selected instruction
//   MeasureQueue  measurements and warp-stall samples, one at a time
//   SearchRuns    the search of the current kernel and the runs kept
//   SessionStore  session files, autosave and the "modified" state
// Panels are handed the parts they show, not the Session. The Session is the composition root: it
// loads inputs and kernels (a thin asynchronous wrapper around the workspace, core/session/
// workspace.h, so the GUI judges and measures exactly as the CLI and searches do) and resets the parts
// when another kernel opens. Its own face is what no part knows: the input and its pending successor,
// the kernel chosen, the launch spec, the source folders and whether a load runs. The kernel's
// workspace and analysis are the variant tree's (VariantTree::kernel, VariantTree::analysis).
//
// Loading and analysis run as JobTracker jobs; results come back as queued calls on the session's
// thread, and a result whose job was cancelled or superseded is dropped.
#include "core/analysis/kernel_analysis.h"
#include "core/session/evaluator_options.h"
#include "core/session/job_tracker.h"
#include "core/session/measure_queue.h"
#include "core/session/search_runs.h"
#include "core/session/session_file.h"
#include "core/session/session_store.h"
#include "core/session/variant_tree.h"
#include "core/session/workspace.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace sassx {

class Session : public QObject
{
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    // ---- the parts ----------------------------------------------------------------------------
    VariantTree* variantTree() { return &m_variants; }
    const VariantTree* variantTree() const { return &m_variants; }
    MeasureQueue* measureQueue() { return &m_measure; }
    const MeasureQueue* measureQueue() const { return &m_measure; }
    SearchRuns* searchRuns() { return &m_searches; }
    const SearchRuns* searchRuns() const { return &m_searches; }
    SessionStore* store() { return &m_store; }
    const SessionStore* store() const { return &m_store; }

    // ---- input and kernel -------------------------------------------------------------------
    // Loads `path` in the background; when it holds one kernel (or `kernel` names one) the analysis
    // follows. Returns the job id. Signals: inputLoaded / loadFailed, then analysisReady / analysisFailed,
    // or kernelChoiceNeeded when the input holds several kernels and none was named.
    // The loaded input stays pending (pendingKernelEntries) and the current session unchanged until a
    // kernel of it is analysed: a failed or cancelled open changes nothing.
    quint64 openInput(const QString& path, const QString& arch = QString::fromLatin1(kDefaultArch),
                      const QString& kernel = {});
    // Analyses kernel `name` of the pending input, or of the current one when none is pending.
    quint64 selectKernel(const QString& name);
    // The pending input's kernels (for a picker), the one to offer first (-1: none), and its path.
    std::vector<KernelEntry> pendingKernelEntries() const;
    int pendingDefaultKernelEntry() const;
    QString pendingInputPath() const;
    // The kernel picker was cancelled: the pending input is dropped, the current session stays.
    void cancelPendingInput();
    // Asked when an analysed kernel is about to replace the one on screen (another input or another
    // kernel; not a session file being restored): false keeps the current session and drops the new
    // one. The front end asks about unsaved changes here, once the new file is known to open.
    void setReplaceCheck(std::function<bool()> check) { m_replaceCheck = std::move(check); }
    void cancel(); // stops the running load/analysis (its result is dropped)
    bool isBusy() const { return m_busy; }

    // Options every workspace this session opens gets (line-table policy, evaluator choice).
    const WorkspaceOptions& workspaceOptions() const { return m_options; }
    void setEvaluatorOptions(const EvaluatorOptions& options);

    QString inputPath() const { return m_inputPath; }
    QString arch() const { return m_arch; }
    std::optional<InputKind> inputKind() const; // none without an input
    // The current kernel's key (what selectKernel and session files take).
    QString kernelName() const { return m_kernel; }
    // The current kernel's symbol (what launch specs and reports name); empty before an analysis.
    QString kernelSymbol() const;

    QString launchSpecPath() const { return m_launchSpecPath; }
    // The user's choice: the measurements and searches use it from now on (the session is modified).
    void setLaunchSpecPath(const QString& path);
    // The spec a session file or a tune run names: the same, but not a change of the user's.
    void restoreLaunchSpecPath(const QString& path);

    // Where to look for source files the line tables name but this machine has elsewhere (session_file.h);
    // kept with the session, dropped when another input opens. Setting them is the user's choice (the
    // session is modified).
    const std::vector<SourceFolder>& sourceFolders() const { return m_sourceFolders; }
    void setSourceFolders(std::vector<SourceFolder> folders);

Q_SIGNALS:
    void busyChanged(bool busy);
    // The input was read (it is pending until one of its kernels is analysed).
    void inputLoaded();
    // The pending input holds several kernels: pick one (selectKernel) or cancelPendingInput.
    void kernelChoiceNeeded();
    void loadFailed(const QString& message);
    void analysisReady();
    void analysisFailed(const QString& message);
    void sourceFoldersChanged();

private:
    // The store restores what a session file keeps: the spec found beside the input
    // (Workspace::defaultLaunchSpecPath, empty when none) when the file names none, and the folders.
    friend class SessionStore;
    QString defaultLaunchSpecPath() const;
    void restoreSourceFolders(std::vector<SourceFolder> folders);

    QStringList pendingKernelNames() const;
    void setBusy(bool busy);
    void startAnalysis(std::shared_ptr<const Workspace> workspace, const QString& kernel);
    // The analysed kernel's input becomes the session's.
    void adoptWorkspace(std::shared_ptr<const Workspace> workspace);
    void applyLaunchSpec(const QString& path);

    // Declared before the job tracker, so that it (and its queued results, which reach the parts) goes
    // first.
    VariantTree m_variants;
    MeasureQueue m_measure{&m_variants};
    SessionStore m_store{this};
    SearchRuns m_searches{&m_variants, &m_store};

    JobTracker m_loadJobs{this, JobTracker::Policy::Supersede};
    bool m_busy = false;

    WorkspaceOptions m_options;
    QString m_inputPath, m_arch = QString::fromLatin1(kDefaultArch), m_kernel, m_launchSpecPath;
    std::shared_ptr<const Workspace> m_workspace;
    std::shared_ptr<const Workspace> m_pendingWorkspace; // read, waiting for a kernel's analysis
    std::function<bool()> m_replaceCheck;
    std::vector<SourceFolder> m_sourceFolders;
};

} // namespace sassx
