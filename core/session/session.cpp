#include "core/session/session.h"

#include "core/eval/evaluator.h"
#include "core/eval/launch_spec.h"
#include "core/session/kernel_evaluator.h"
#include "core/session/measure_state.h"
#include "core/session/session_file.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMetaObject>
#include <QStandardPaths>

#include <algorithm>
#include <chrono>

namespace sassx {

struct Session::PendingSession
{
    SessionFile file;
};

Session::Session(QObject* parent) : QObject(parent)
{
    m_autosave.setSingleShot(true);
    m_autosave.setInterval(3000);
    connect(&m_autosave, &QTimer::timeout, this, &Session::autosave);
    resetMeasureState();
    resetVariants();
    connectSearch();
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
    resetMeasureState();
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
    return m_kernelWs ? QString::fromStdString(m_kernelWs->name()) : QString();
}

std::shared_ptr<const KernelAnalysis> Session::analysis() const
{
    return m_kernelWs ? m_kernelWs->analysisPtr() : nullptr;
}

const LegalityChecker* Session::checker() const
{
    return m_kernelWs ? &m_kernelWs->checker() : nullptr;
}

const Cubin* Session::currentCubin() const
{
    return m_kernelWs ? &m_kernelWs->cubin() : nullptr;
}

QStringList Session::notices() const
{
    QStringList out;
    if (m_kernelWs)
        for (const auto& n : m_kernelWs->notices())
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
                m_pending.reset();
                Q_EMIT loadFailed(QString::fromStdString(opened.message()));
                return;
            }
            m_workspace = *opened;
            m_inputPath = QString::fromStdString(m_workspace->input().path);
            m_arch = QString::fromStdString(m_workspace->options().arch);
            m_kernel.clear();
            m_kernelWs.reset();
            // A new input starts a new, unsaved session: saving must never write it over the file of
            // the input this session came from (openSession keeps its own path through m_pending).
            if (!m_pending) m_sessionPath.clear();
            // ... and has nothing unsaved yet (the caller asked about the old one's changes first).
            if (!m_pending) clearModified();
            m_selected = -1;
            resetMeasureState();
            resetVariants();
            resetSearches();
            // Views must drop the old kernel's rows now, not when (or if) an analysis follows; a view
            // that kept them would read an analysis that is gone.
            Q_EMIT selectionChanged(-1);
            Q_EMIT variantsChanged();
            Q_EMIT currentVariantChanged(m_current);
            if (m_launchSpecPath.isEmpty() || !m_pending)
                m_launchSpecPath = QString::fromStdString(m_workspace->defaultLaunchSpecPath());
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
                m_pending.reset();
                Q_EMIT analysisFailed(QString::fromStdString(built.message()));
                return;
            }
            // Another kernel is another session (its variants start anew): not the saved file's.
            if (!m_pending && kernel != m_kernel) {
                m_sessionPath.clear();
                clearModified();
            }
            m_kernel = kernel;
            m_kernelWs = *built;
            resetMeasureState();
            m_selected = -1;
            resetVariants();
            resetSearches();
            Q_EMIT analysisReady();
            Q_EMIT variantsChanged();
            Q_EMIT currentVariantChanged(m_current);
            Q_EMIT scheduleChanged();
            if (m_pending) applyPendingSession();
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
    m_launchSpecPath = path;
    resetMeasureState(); // the baseline belongs to the old spec
    markModified();
}

// ---- variants -----------------------------------------------------------------------------------

void Session::resetVariants()
{
    m_variants.clear();
    VariantRecord original;
    original.id = 0;
    original.parent = -1;
    original.name = "original";
    m_variants.push_back(original);
    m_current = 0;
    m_nextId = 1;
    recomputeSchedule();
}

const VariantRecord* Session::variant(int id) const
{
    auto it = std::lower_bound(m_variants.begin(), m_variants.end(), id,
                               [](const VariantRecord& r, int v) { return r.id < v; });
    return it != m_variants.end() && it->id == id ? &*it : nullptr;
}

VariantRecord* Session::mutableVariant(int id)
{
    return const_cast<VariantRecord*>(variant(id));
}

std::vector<int> Session::childrenOf(int id) const
{
    std::vector<int> out;
    for (const auto& v : m_variants)
        if (v.parent == id) out.push_back(v.id);
    return out;
}

Result<Schedule> Session::scheduleOf(int id) const
{
    const VariantRecord* v = variant(id);
    if (!v) return makeError("no variant " + std::to_string(id));
    if (!m_kernelWs) return makeError("no kernel is open");
    return m_kernelWs->schedule(v->edits);
}

void Session::recomputeSchedule()
{
    if (!m_kernelWs) {
        m_schedule = Schedule{};
        return;
    }
    auto s = scheduleOf(m_current);
    // A variant whose edits no longer apply (a session from another build) shows the original order;
    // the variants panel says why.
    m_schedule = s ? std::move(*s) : Schedule::identity(m_kernelWs->analysis());
}

void Session::setCurrentVariant(int id)
{
    if (id == m_current || !variant(id)) return;
    m_current = id;
    recomputeSchedule();
    Q_EMIT currentVariantChanged(id);
    Q_EMIT scheduleChanged();
    markModified();
}

int Session::addVariant(int parent, const QString& name, std::vector<Edit> edits, int id)
{
    VariantRecord r;
    r.id = id < 0 ? m_nextId : id;
    r.parent = variant(parent) ? parent : 0;
    r.name = name.isEmpty() ? nextVariantName().toStdString() : name.toStdString();
    r.edits = std::move(edits);
    restoreVariant(r);
    return r.id;
}

void Session::restoreVariant(const VariantRecord& record)
{
    if (VariantRecord* existing = mutableVariant(record.id)) {
        const int oldParent = existing->parent;
        *existing = record;
        if (oldParent != record.parent) Q_EMIT variantReparented(record.id, oldParent);
        Q_EMIT variantChanged(record.id);
    } else {
        auto it = std::lower_bound(m_variants.begin(), m_variants.end(), record.id,
                                   [](const VariantRecord& r, int v) { return r.id < v; });
        m_variants.insert(it, record);
        m_nextId = std::max(m_nextId, record.id + 1);
        Q_EMIT variantAdded(record.id);
    }
    if (record.id == m_current) {
        recomputeSchedule();
        Q_EMIT scheduleChanged();
    }
    markModified();
}

bool Session::removeVariant(int id)
{
    const VariantRecord* v = variant(id);
    if (!v || v->isOriginal()) return false;
    const int parent = v->parent;
    for (auto& other : m_variants)
        if (other.parent == id) {
            other.parent = parent;
            Q_EMIT variantReparented(other.id, id);
        }
    Q_EMIT variantAboutToBeRemoved(id);
    m_variants.erase(std::find_if(m_variants.begin(), m_variants.end(),
                                  [id](const VariantRecord& r) { return r.id == id; }));
    const bool wasCurrent = m_current == id;
    if (wasCurrent) m_current = parent;
    Q_EMIT variantRemoved(id);
    if (wasCurrent) {
        recomputeSchedule();
        Q_EMIT currentVariantChanged(m_current);
        Q_EMIT scheduleChanged();
    }
    markModified();
    return true;
}

void Session::renameVariant(int id, const QString& name)
{
    VariantRecord* v = mutableVariant(id);
    if (!v || name.trimmed().isEmpty() || v->name == name.toStdString()) return;
    v->name = name.trimmed().toStdString();
    Q_EMIT variantChanged(id);
    markModified();
}

void Session::setVariantEdits(int id, std::vector<Edit> edits)
{
    VariantRecord* v = mutableVariant(id);
    if (!v || v->isOriginal()) return;
    v->edits = std::move(edits);
    v->figures.reset(); // they measured another schedule
    v->stalls.reset();
    Q_EMIT variantChanged(id);
    if (id == m_current) {
        recomputeSchedule();
        Q_EMIT scheduleChanged();
    }
    markModified();
}

QString Session::nextVariantName() const
{
    for (int n = m_nextId;; ++n) {
        const std::string name = "v" + std::to_string(n);
        if (std::none_of(m_variants.begin(), m_variants.end(),
                         [&](const VariantRecord& r) { return r.name == name; }))
            return QString::fromStdString(name);
    }
}

LegalityReport Session::checkEdits(int variantId, const std::vector<Edit>& extra) const
{
    const VariantRecord* v = variant(variantId);
    if (!m_kernelWs || !v) {
        LegalityReport report;
        report.hazards.push_back({HazardKind::Structure, 0, 0, "no kernel is open", 0});
        return report;
    }
    std::vector<Edit> edits = v->edits;
    edits.insert(edits.end(), extra.begin(), extra.end());
    return m_kernelWs->check(edits);
}

// ---- selection ----------------------------------------------------------------------------------

void Session::setSelectedInstruction(int originalIndex)
{
    if (m_kernelWs &&
        (originalIndex < -1 || originalIndex >= int(m_kernelWs->analysis().listing.instructions.size())))
        originalIndex = -1;
    if (originalIndex == m_selected) return;
    m_selected = originalIndex;
    Q_EMIT selectionChanged(originalIndex);
}

// ---- measuring ----------------------------------------------------------------------------------

void Session::resetMeasureState()
{
    m_measureState = std::make_shared<MeasureState>();
}

void Session::setEvaluator(std::shared_ptr<eval::Evaluator> evaluator)
{
    m_injectedEvaluator = std::move(evaluator);
    resetMeasureState();
}

QString Session::measureUnavailableReason(int variantId) const
{
    const VariantRecord* v = variant(variantId);
    if (!m_kernelWs || !v) return tr("No kernel is open.");
    if (m_launchSpecPath.isEmpty())
        return tr(
            "No launch spec: choose one with File ▸ Set Launch Spec… (the evaluator needs to know how to "
            "run the kernel).");
    return {};
}

namespace {

// The measure thread's side: make the evaluator on first use (starting GPU workers takes seconds),
// then measure. Only this function touches the state's inside, and jobs run one at a time.
Result<VariantFigures> measureOnThread(KernelEvaluator*& evaluator, std::unique_ptr<KernelEvaluator>& owned,
                                       const std::shared_ptr<const KernelWorkspace>& kernel,
                                       const std::shared_ptr<eval::Evaluator>& injected,
                                       const EvaluatorOptions& options, const std::string& specPath,
                                       const Schedule& schedule, const JobControl& job)
{
    if (Status s = ensureKernelEvaluator(owned, kernel, injected, options, specPath); !s) return s.error();
    evaluator = owned.get();
    if (job.stopped()) return makeError("cancelled");
    const auto t0 = std::chrono::steady_clock::now();
    MeasureOptions mo;
    mo.metrics = true;
    mo.stop = job.stopFlag();
    auto measured = owned->measure(schedule, mo);
    if (!measured) return measured.error();
    VariantFigures figures;
    figures.result = std::move(*measured);
    figures.result.wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    figures.when = QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
    return figures;
}

} // namespace

quint64 Session::measure(int variantId)
{
    const QString why = measureUnavailableReason(variantId);
    if (!why.isEmpty()) {
        Q_EMIT measureFailed(variantId, why);
        return 0;
    }
    const VariantRecord* v = variant(variantId);
    auto scheduled = m_kernelWs->schedule(v->edits);
    if (!scheduled) {
        Q_EMIT measureFailed(variantId, QString::fromStdString(scheduled.message()));
        return 0;
    }
    const std::vector<Edit> edits = v->edits;
    auto kernel = m_kernelWs;
    auto state = m_measureState;
    auto injected = m_injectedEvaluator;
    const EvaluatorOptions options = m_options.evaluator;
    const std::string specPath = m_launchSpecPath.toStdString();
    Schedule schedule = std::move(*scheduled);
    struct Outcome
    {
        Result<VariantFigures> figures = makeError("not run");
        QString backend, reason;
    };
    Q_EMIT measureStarted(variantId);
    return m_measureJobs.start(
        [=](const JobControl& job) {
            Outcome out;
            KernelEvaluator* used = nullptr;
            out.figures =
                measureOnThread(used, state->evaluator, kernel, injected, options, specPath, schedule, job);
            if (used) {
                out.backend = QString::fromStdString(used->choice().backend);
                out.reason = QString::fromStdString(used->choice().reason);
            }
            return out;
        },
        [this, variantId, edits, kernel](Outcome out) {
            if (!out.backend.isEmpty() &&
                (out.backend != m_evaluatorBackend || out.reason != m_evaluatorReason)) {
                m_evaluatorBackend = out.backend;
                m_evaluatorReason = out.reason;
                Q_EMIT evaluatorChosen(out.backend, out.reason);
            }
            finishMeasure(variantId, edits, kernel, out.figures);
        },
        [this, variantId] { Q_EMIT measureFailed(variantId, tr("cancelled")); });
}

void Session::finishMeasure(int variantId, const std::vector<Edit>& edits,
                            const std::shared_ptr<const KernelWorkspace>& kernel,
                            const Result<VariantFigures>& figures)
{
    if (!figures) {
        Q_EMIT measureFailed(variantId, QString::fromStdString(figures.message()));
        return;
    }
    VariantRecord* v = mutableVariant(variantId);
    // Dropped when the variant was deleted or edited meanwhile: these figures belong to a schedule
    // that no longer exists.
    if (!v || v->edits != edits || kernel != m_kernelWs) {
        Q_EMIT measureFailed(variantId, tr("the variant changed while it was being measured"));
        return;
    }
    v->figures = *figures;
    Q_EMIT variantChanged(variantId);
    Q_EMIT measureFinished(variantId);
    markModified();
}

void Session::cancelMeasure()
{
    m_measureJobs.cancel();
}

// ---- persistence --------------------------------------------------------------------------------

static SessionFile snapshot(const Session& s)
{
    SessionFile f;
    f.input = s.inputPath().toStdString();
    f.arch = s.arch().toStdString();
    f.kernel = s.kernelName().toStdString();
    f.launchSpec = s.launchSpecPath().toStdString();
    f.currentVariant = s.currentVariantId();
    f.selected = s.selectedInstruction();
    f.variants = s.variants();
    f.searches = s.searches();
    return f;
}

bool Session::save(const QString& path, QString* error)
{
    if (m_inputPath.isEmpty()) {
        if (error) *error = tr("nothing to save: no input is open");
        return false;
    }
    auto st = writeSessionFile(path.toStdString(), snapshot(*this));
    if (!st) {
        if (error) *error = QString::fromStdString(st.message());
        return false;
    }
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    m_autosave.stop();
    if (m_modified) {
        m_modified = false;
        Q_EMIT modifiedChanged(false);
    }
    Q_EMIT saved(m_sessionPath);
    return true;
}

bool Session::openSession(const QString& path, QString* error)
{
    auto file = readSessionFile(path.toStdString());
    if (!file) {
        if (error) *error = QString::fromStdString(file.message());
        return false;
    }
    m_pending = std::make_unique<PendingSession>(PendingSession{std::move(*file)});
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    m_launchSpecPath = QString::fromStdString(m_pending->file.launchSpec);
    const auto& f = m_pending->file;
    openInput(QString::fromStdString(f.input), QString::fromStdString(f.arch),
              QString::fromStdString(f.kernel));
    return true;
}

bool Session::restoreAutosave(QString* error)
{
    if (!openSession(autosavePath(), error)) return false;
    // The autosave file is a copy, not the session's own file: saving asks where, as for any new session.
    m_sessionPath.clear();
    m_fromAutosave = true;
    return true;
}

bool Session::autosaveAvailable(QString* input)
{
    const QString path = autosavePath();
    if (!QFileInfo::exists(path)) return false;
    auto file = readSessionFile(path.toStdString());
    if (!file || file->input.empty() || !QFileInfo::exists(QString::fromStdString(file->input))) return false;
    if (input) *input = QString::fromStdString(file->input);
    return true;
}

void Session::applyPendingSession()
{
    std::unique_ptr<PendingSession> pending = std::move(m_pending);
    QStringList problems;
    std::vector<VariantRecord> variants;
    for (const VariantRecord& r : pending->file.variants) {
        if (r.parent < 0 && r.id != 0) continue; // only one original
        if (!r.edits.empty()) {
            auto s = m_kernelWs->schedule(r.edits);
            if (!s) problems << QString::fromStdString(r.name + ": " + s.message());
        }
        variants.push_back(r);
    }
    std::sort(variants.begin(), variants.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    if (variants.empty() || variants.front().id != 0) {
        VariantRecord original;
        original.name = "original";
        variants.insert(variants.begin(), original);
    }
    m_variants = std::move(variants);
    m_nextId = m_variants.back().id + 1;
    m_current = variant(pending->file.currentVariant) ? pending->file.currentVariant : 0;
    m_launchSpecPath = QString::fromStdString(pending->file.launchSpec);
    m_searches = pending->file.searches;
    Q_EMIT searchRecordsChanged();
    recomputeSchedule();
    Q_EMIT variantsChanged();
    Q_EMIT currentVariantChanged(m_current);
    Q_EMIT scheduleChanged();
    setSelectedInstruction(pending->file.selected);
    // A restored autosave has no file yet: it stays modified until the user saves it somewhere.
    m_modified = m_fromAutosave;
    m_fromAutosave = false;
    Q_EMIT modifiedChanged(m_modified);
    if (!problems.isEmpty())
        Q_EMIT sessionRestoreFailed(
            tr("Some variants no longer apply to this kernel:\n%1").arg(problems.join('\n')));
    Q_EMIT sessionRestored();
}

void Session::clearModified()
{
    m_autosave.stop();
    if (!m_modified) return;
    m_modified = false;
    Q_EMIT modifiedChanged(false);
}

void Session::markModified()
{
    if (!m_modified) {
        m_modified = true;
        Q_EMIT modifiedChanged(true);
    }
    if (m_autosave.interval() > 0) m_autosave.start();
}

void Session::setAutosaveInterval(int ms)
{
    m_autosave.setInterval(ms);
    if (ms <= 0) m_autosave.stop();
}

QString Session::autosavePath()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    return QDir(dir).filePath(QStringLiteral("autosave.sassx.json"));
}

void Session::autosave()
{
    if (m_inputPath.isEmpty() || !m_modified) return;
    // Autosave never changes which file the session belongs to, and does not clear "modified" unless
    // it wrote that very file.
    if (!m_sessionPath.isEmpty()) {
        save(m_sessionPath);
    } else {
        (void)writeSessionFile(autosavePath().toStdString(), snapshot(*this));
    }
}

} // namespace sassx
