#include "core/session/session.h"

#include <QFileInfo>

namespace sassx {

Session::Session(QObject* parent) : QObject(parent)
{
    // Whatever a session file keeps marks the session modified (and starts the autosave timer).
    connect(&m_variants, &VariantTree::edited, &m_store, &SessionStore::markModified);
    connect(&m_searches, &SearchRuns::edited, &m_store, &SessionStore::markModified);
    m_measure.setEvaluatorOptions(m_options.evaluator);
    m_searches.setEvaluatorOptions(m_options.evaluator);
}

// The job trackers stop their jobs and wait for them; queued results die with the object.
Session::~Session() = default;

void Session::setBusy(bool busy)
{
    if (m_busy == busy) return;
    m_busy = busy;
    Q_EMIT busyChanged(busy);
}

void Session::setEvaluatorOptions(const EvaluatorOptions& options)
{
    m_options.evaluator = options;
    m_measure.setEvaluatorOptions(options);
    m_searches.setEvaluatorOptions(options);
}

std::optional<InputKind> Session::inputKind() const
{
    if (!m_workspace) return std::nullopt;
    return m_workspace->input().kind;
}

QString Session::kernelSymbol() const
{
    const auto kernel = m_variants.kernel();
    return kernel ? QString::fromStdString(kernel->name()) : QString();
}

quint64 Session::openInput(const QString& path, const QString& arch, const QString& kernel)
{
    const std::string file = QFileInfo(path).absoluteFilePath().toStdString();
    WorkspaceOptions options = m_options;
    options.arch = arch.isEmpty() ? std::string(kDefaultArch) : arch.toStdString();
    setBusy(true);
    return m_loadJobs.start(
        [file, options](const JobControl&) { return Workspace::open(file, options); },
        [this, kernel](Result<std::shared_ptr<const Workspace>> opened) {
            if (!opened) {
                setBusy(false);
                m_store.dropRestore();
                Q_EMIT loadFailed(QString::fromStdString(opened.message()));
                return;
            }
            // The input waits here until one of its kernels is analysed: an open that fails, or whose
            // kernel picker is cancelled, leaves the current session as it was.
            m_pendingWorkspace = *opened;
            Q_EMIT inputLoaded();
            const QStringList names = pendingKernelNames();
            QString pick = kernel;
            if (pick.isEmpty() && names.size() == 1) pick = names.front();
            if (!pick.isEmpty() && names.contains(pick)) {
                startAnalysis(m_pendingWorkspace, pick);
                return;
            }
            setBusy(false);
            if (pick.isEmpty() && !names.isEmpty()) {
                Q_EMIT kernelChoiceNeeded();
                return;
            }
            const QString input = QString::fromStdString(m_pendingWorkspace->input().path);
            cancelPendingInput();
            Q_EMIT analysisFailed(names.isEmpty() ? tr("%1 holds no kernels").arg(input)
                                                  : tr("no kernel named '%1' in %2").arg(pick, input));
        },
        [this] { setBusy(m_loadJobs.isRunning()); });
}

QStringList Session::pendingKernelNames() const
{
    QStringList names;
    if (m_pendingWorkspace)
        for (const auto& n : m_pendingWorkspace->kernelNames())
            names << QString::fromStdString(n);
    return names;
}

std::vector<KernelEntry> Session::pendingKernelEntries() const
{
    return m_pendingWorkspace ? m_pendingWorkspace->kernels() : std::vector<KernelEntry>();
}

int Session::pendingDefaultKernelEntry() const
{
    return m_pendingWorkspace && !m_pendingWorkspace->kernels().empty()
               ? int(m_pendingWorkspace->defaultKernel())
               : -1;
}

QString Session::pendingInputPath() const
{
    return m_pendingWorkspace ? QString::fromStdString(m_pendingWorkspace->input().path) : QString();
}

void Session::cancelPendingInput()
{
    m_pendingWorkspace.reset();
    m_store.dropRestore();
}

quint64 Session::selectKernel(const QString& name)
{
    const std::shared_ptr<const Workspace> workspace = m_pendingWorkspace ? m_pendingWorkspace : m_workspace;
    if (!workspace || workspace->cubinIndexOf(name.toStdString()) < 0) {
        const QString input = QString::fromStdString(workspace ? workspace->input().path : std::string());
        Q_EMIT analysisFailed(tr("no kernel named '%1' in %2").arg(name, input));
        return 0;
    }
    setBusy(true);
    startAnalysis(workspace, name);
    return m_loadJobs.lastId();
}

void Session::adoptWorkspace(std::shared_ptr<const Workspace> workspace)
{
    // A new input starts a new, unsaved session: saving must never write it over the file of the input
    // this session came from (a session file being reopened names its own path once restored), and it
    // has nothing unsaved yet (the caller asked about the old one's changes first).
    const bool restoring = m_store.isRestoring();
    if (!restoring) m_store.forgetFile();
    m_workspace = std::move(workspace);
    m_pendingWorkspace.reset();
    m_inputPath = QString::fromStdString(m_workspace->input().path);
    m_arch = QString::fromStdString(m_workspace->options().arch);
    m_kernel.clear();
    // A restored session applies its own spec and source folders (SessionStore::applyRestore).
    if (!restoring) {
        applyLaunchSpec(QString::fromStdString(m_workspace->defaultLaunchSpecPath()));
        restoreSourceFolders({});
    }
}

QString Session::defaultLaunchSpecPath() const
{
    return m_workspace ? QString::fromStdString(m_workspace->defaultLaunchSpecPath()) : QString();
}

void Session::startAnalysis(std::shared_ptr<const Workspace> workspace, const QString& kernel)
{
    const std::string name = kernel.toStdString();
    m_loadJobs.start(
        [workspace, name](const JobControl& job) {
            auto built = workspace->kernel(name, job.stopFlag());
            // The control rules decode their batch of edited words here, off the UI thread, so the
            // first right-click or drag does not wait on nvdisasm.
            if (built) (*built)->checker().controlRules().primeEncodings();
            return built;
        },
        [this, workspace, kernel](Result<std::shared_ptr<const KernelWorkspace>> built) {
            setBusy(false);
            if (!built) {
                // A new input that cannot be analysed is not adopted: the current session stays.
                if (workspace == m_pendingWorkspace) m_pendingWorkspace.reset();
                m_store.dropRestore();
                Q_EMIT analysisFailed(QString::fromStdString(built.message()));
                return;
            }
            const bool replaces = workspace != m_workspace || kernel != m_kernel;
            if (replaces && !m_store.isRestoring() && m_variants.kernel() && m_replaceCheck &&
                !m_replaceCheck()) {
                if (workspace == m_pendingWorkspace) m_pendingWorkspace.reset();
                return;
            }
            if (workspace != m_workspace) adoptWorkspace(workspace);
            // Another kernel is another session (its variants start anew): not the saved file's.
            if (!m_store.isRestoring() && kernel != m_kernel) m_store.forgetFile();
            m_kernel = kernel;
            m_measure.reset();
            m_variants.reset(*built);
            m_searches.reset();
            // Views drop the old kernel's rows and selection before anyone hears of the new one.
            m_variants.announceReset(true);
            Q_EMIT analysisReady();
            if (m_store.isRestoring()) m_store.applyRestore();
        },
        [this] { setBusy(m_loadJobs.isRunning()); });
}

void Session::cancel()
{
    m_loadJobs.cancel();
    setBusy(false);
}

void Session::setLaunchSpecPath(const QString& path)
{
    if (m_launchSpecPath == path) return;
    applyLaunchSpec(path);
    m_store.markModified();
}

void Session::restoreLaunchSpecPath(const QString& path)
{
    applyLaunchSpec(path);
}

void Session::setSourceFolders(std::vector<SourceFolder> folders)
{
    if (folders == m_sourceFolders) return;
    restoreSourceFolders(std::move(folders));
    m_store.markModified();
}

void Session::restoreSourceFolders(std::vector<SourceFolder> folders)
{
    if (folders == m_sourceFolders) return;
    m_sourceFolders = std::move(folders);
    Q_EMIT sourceFoldersChanged();
}

void Session::applyLaunchSpec(const QString& path)
{
    m_launchSpecPath = path;
    m_measure.setLaunchSpec(path); // a new evaluator: the baseline belongs to the old spec
    m_searches.setLaunchSpec(path);
}

} // namespace sassx
