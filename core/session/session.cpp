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

QString Session::inputKind() const
{
    return m_workspace ? QString::fromStdString(m_workspace->input().kind) : QString();
}

QStringList Session::kernelNames() const
{
    QStringList names;
    if (m_workspace)
        for (const auto& n : m_workspace->kernelNames())
            names << QString::fromStdString(n);
    return names;
}

std::vector<KernelEntry> Session::kernelEntries() const
{
    return m_workspace ? m_workspace->kernels() : std::vector<KernelEntry>();
}

int Session::defaultKernelEntry() const
{
    return m_workspace && !m_workspace->kernels().empty() ? int(m_workspace->defaultKernel()) : -1;
}

QString Session::kernelSymbol() const
{
    const auto kernel = m_variants.kernel();
    return kernel ? QString::fromStdString(kernel->name()) : QString();
}

QStringList Session::notices() const
{
    QStringList out;
    if (const auto kernel = m_variants.kernel())
        for (const auto& n : kernel->notices())
            out << QString::fromStdString(n);
    return out;
}

quint64 Session::openInput(const QString& path, const QString& arch, const QString& kernel)
{
    const std::string file = QFileInfo(path).absoluteFilePath().toStdString();
    WorkspaceOptions options = m_options;
    options.arch = arch.isEmpty() ? std::string("sm_90") : arch.toStdString();
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
            m_workspace = *opened;
            m_inputPath = QString::fromStdString(m_workspace->input().path);
            m_arch = QString::fromStdString(m_workspace->options().arch);
            m_kernel.clear();
            // A new input starts a new, unsaved session: saving must never write it over the file of
            // the input this session came from (openSession keeps its own path while it restores), and
            // it has nothing unsaved yet (the caller asked about the old one's changes first).
            const bool restoring = m_store.isRestoring();
            if (!restoring) m_store.forgetFile();
            m_measure.reset();
            m_variants.reset(nullptr);
            m_searches.reset();
            // Views must drop the old kernel's rows now, not when (or if) an analysis follows; a view
            // that kept them would read an analysis that is gone.
            m_variants.announceReset(true);
            if (m_launchSpecPath.isEmpty() || !restoring)
                applyLaunchSpec(QString::fromStdString(m_workspace->defaultLaunchSpecPath()));
            Q_EMIT inputLoaded();
            const QStringList names = kernelNames();
            QString pick = kernel;
            if (pick.isEmpty() && names.size() == 1) pick = names.front();
            if (!pick.isEmpty() && names.contains(pick)) {
                startAnalysis(m_workspace, pick);
            } else {
                setBusy(false);
                if (names.isEmpty())
                    Q_EMIT analysisFailed(tr("%1 holds no kernels").arg(m_inputPath));
                else if (!pick.isEmpty())
                    Q_EMIT analysisFailed(tr("no kernel named '%1' in %2").arg(pick, m_inputPath));
            }
        },
        [this] { setBusy(m_loadJobs.isRunning()); });
}

quint64 Session::selectKernel(const QString& name)
{
    if (!m_workspace || m_workspace->cubinIndexOf(name.toStdString()) < 0) {
        Q_EMIT analysisFailed(tr("no kernel named '%1' in %2").arg(name, m_inputPath));
        return 0;
    }
    setBusy(true);
    startAnalysis(m_workspace, name);
    return m_loadJobs.lastId();
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
        [this, kernel](Result<std::shared_ptr<const KernelWorkspace>> built) {
            setBusy(false);
            if (!built) {
                m_store.dropRestore();
                Q_EMIT analysisFailed(QString::fromStdString(built.message()));
                return;
            }
            // Another kernel is another session (its variants start anew): not the saved file's.
            if (!m_store.isRestoring() && kernel != m_kernel) m_store.forgetFile();
            m_kernel = kernel;
            m_measure.reset();
            m_variants.reset(*built);
            m_searches.reset();
            Q_EMIT analysisReady();
            m_variants.announceReset(false);
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

void Session::applyLaunchSpec(const QString& path)
{
    m_launchSpecPath = path;
    m_measure.setLaunchSpec(path); // a new evaluator: the baseline belongs to the old spec
    m_searches.setLaunchSpec(path);
}

} // namespace sassx
