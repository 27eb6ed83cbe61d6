#include "core/session/session.h"

#include "core/eval/evaluator.h"
#include "core/eval/launch_spec.h"
#include "core/session/session_file.h"

#include <QDateTime>
#include <QDir>
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
    m_pool.setMaxThreadCount(1); // one load/analysis at a time: the machine is shared, and a new one cancels
    m_measurePool.setMaxThreadCount(1);
    m_autosave.setSingleShot(true);
    m_autosave.setInterval(3000);
    connect(&m_autosave, &QTimer::timeout, this, &Session::autosave);
    resetVariants();
}

Session::~Session()
{
    if (m_stop) m_stop->store(true);
    // Jobs call back into this object: wait for them before the members go away. Their queued results
    // die with the object.
    m_pool.waitForDone();
    m_measurePool.waitForDone();
}

void Session::setBusy(bool busy)
{
    if (m_busy == busy) return;
    m_busy = busy;
    Q_EMIT busyChanged(busy);
}

QString Session::inputKind() const
{
    return m_input ? QString::fromStdString(m_input->kind) : QString();
}

QStringList Session::kernelNames() const
{
    QStringList names;
    if (m_input)
        for (const auto& c : m_input->cubins)
            for (const auto& k : c.cubin.kernels())
                names << QString::fromStdString(k.name);
    return names;
}

int Session::cubinIndexOf(const QString& kernel) const
{
    if (!m_input) return -1;
    const std::string name = kernel.toStdString();
    for (size_t c = 0; c < m_input->cubins.size(); ++c)
        if (m_input->cubins[c].cubin.findKernel(name)) return int(c);
    return -1;
}

const Cubin* Session::currentCubin() const
{
    const int c = cubinIndexOf(m_kernel);
    return c < 0 ? nullptr : &m_input->cubins[size_t(c)].cubin;
}

quint64 Session::openInput(const QString& path, const QString& arch, const QString& kernel)
{
    cancel();
    const quint64 job = ++m_lastJob;
    m_loadJob = job;
    auto stop = std::make_shared<std::atomic_bool>(false);
    m_stop = stop;
    setBusy(true);
    const std::string file = QFileInfo(path).absoluteFilePath().toStdString();
    LoadOptions options;
    options.arch = arch.isEmpty() ? std::string("sm_90") : arch.toStdString();
    m_pool.start([this, job, stop, file, options, kernel] {
        auto loaded = loadInput(file, options);
        if (stop->load()) return;
        std::shared_ptr<const LoadedInput> input;
        QString error;
        if (loaded)
            input = std::make_shared<const LoadedInput>(std::move(*loaded));
        else
            error = QString::fromStdString(loaded.message());
        QMetaObject::invokeMethod(
            this,
            [this, job, stop, input, error, options, kernel] {
                if (job != m_loadJob || stop->load()) return; // a newer request superseded this one
                if (!input) {
                    setBusy(false);
                    m_pending.reset();
                    Q_EMIT loadFailed(error);
                    return;
                }
                m_input = input;
                m_inputPath = QString::fromStdString(input->path);
                m_arch = QString::fromStdString(options.arch);
                m_kernel.clear();
                m_analysis.reset();
                m_checker.reset();
                resetVariants();
                if (m_launchSpecPath.isEmpty() || !m_pending) {
                    // samples/<name>.launch.json beside <name>.sm_90.cubin: the usual layout.
                    const QFileInfo fi(m_inputPath);
                    const QString spec = fi.dir().filePath(fi.fileName().section(QLatin1Char('.'), 0, 0) +
                                                           QStringLiteral(".launch.json"));
                    m_launchSpecPath = QFileInfo::exists(spec) ? spec : QString();
                }
                Q_EMIT inputLoaded();
                const QStringList names = kernelNames();
                QString pick = kernel;
                if (pick.isEmpty() && names.size() == 1) pick = names.front();
                if (!pick.isEmpty() && names.contains(pick)) {
                    startAnalysis(job, stop, cubinIndexOf(pick), pick);
                } else {
                    setBusy(false);
                    if (names.isEmpty())
                        Q_EMIT analysisFailed(tr("%1 holds no kernels").arg(m_inputPath));
                    else if (!pick.isEmpty())
                        Q_EMIT analysisFailed(tr("no kernel named '%1' in %2").arg(pick, m_inputPath));
                }
            },
            Qt::QueuedConnection);
    });
    return job;
}

quint64 Session::selectKernel(const QString& name)
{
    const int c = cubinIndexOf(name);
    if (c < 0) {
        Q_EMIT analysisFailed(tr("no kernel named '%1' in %2").arg(name, m_inputPath));
        return 0;
    }
    cancel();
    const quint64 job = ++m_lastJob;
    m_loadJob = job;
    m_stop = std::make_shared<std::atomic_bool>(false);
    setBusy(true);
    startAnalysis(job, m_stop, c, name);
    return job;
}

void Session::startAnalysis(quint64 job, std::shared_ptr<std::atomic_bool> stop, int cubinIndex,
                            const QString& kernel)
{
    auto input = m_input;
    const std::string name = kernel.toStdString();
    m_pool.start([this, job, stop, input, cubinIndex, name, kernel] {
        std::shared_ptr<const KernelAnalysis> analysis;
        QString error;
        auto listing = disassembleKernel(input->cubins[size_t(cubinIndex)].cubin, name);
        if (stop->load()) return;
        if (listing)
            analysis = KernelAnalysis::build(std::move(*listing));
        else
            error = QString::fromStdString(listing.message());
        if (stop->load()) return;
        // The checker precomputes per-kernel facts: build it here, off the UI thread.
        std::shared_ptr<const LegalityChecker> checker;
        if (analysis) checker = std::make_shared<LegalityChecker>(analysis);
        QMetaObject::invokeMethod(
            this,
            [this, job, stop, analysis, checker, error, kernel] {
                if (job != m_loadJob || stop->load()) return;
                setBusy(false);
                if (!analysis) {
                    m_pending.reset();
                    Q_EMIT analysisFailed(error);
                    return;
                }
                m_kernel = kernel;
                m_analysis = analysis;
                m_checker = checker;
                m_baselineSet = false;
                m_evaluator.reset();
                m_selected = -1;
                resetVariants();
                Q_EMIT analysisReady();
                Q_EMIT variantsChanged();
                Q_EMIT currentVariantChanged(m_current);
                Q_EMIT scheduleChanged();
                if (m_pending) applyPendingSession();
            },
            Qt::QueuedConnection);
    });
}

void Session::cancel()
{
    if (m_stop) m_stop->store(true);
    m_stop.reset();
    m_loadJob = 0;
    setBusy(false);
}

void Session::setLaunchSpecPath(const QString& path)
{
    if (m_launchSpecPath == path) return;
    m_launchSpecPath = path;
    m_baselineSet = false;
    m_evaluator.reset(); // the baseline belongs to the old spec
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
    if (!m_analysis) return makeError("no kernel is open");
    return applyEdits(*m_analysis, v->edits);
}

void Session::recomputeSchedule()
{
    if (!m_analysis) {
        m_schedule = Schedule{};
        return;
    }
    auto s = scheduleOf(m_current);
    // A variant whose edits no longer apply (a session from another build) shows the original order;
    // the variants panel says why.
    m_schedule = s ? std::move(*s) : Schedule::identity(*m_analysis);
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
        const bool structural = existing->parent != record.parent;
        *existing = record;
        if (structural) Q_EMIT variantsChanged();
        Q_EMIT variantChanged(record.id);
    } else {
        auto it = std::lower_bound(m_variants.begin(), m_variants.end(), record.id,
                                   [](const VariantRecord& r, int v) { return r.id < v; });
        m_variants.insert(it, record);
        m_nextId = std::max(m_nextId, record.id + 1);
        Q_EMIT variantsChanged();
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
        if (other.parent == id) other.parent = parent;
    m_variants.erase(std::find_if(m_variants.begin(), m_variants.end(),
                                  [id](const VariantRecord& r) { return r.id == id; }));
    const bool wasCurrent = m_current == id;
    if (wasCurrent) m_current = parent;
    Q_EMIT variantsChanged();
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
    LegalityReport report;
    const VariantRecord* v = variant(variantId);
    if (!m_checker || !v) {
        report.hazards.push_back({HazardKind::Structure, 0, 0, "no kernel is open", 0});
        return report;
    }
    std::vector<Edit> edits = v->edits;
    edits.insert(edits.end(), extra.begin(), extra.end());
    // Structure first (a move out of its block): applyEdits explains it in words the checker may not.
    auto s = applyEdits(*m_analysis, edits);
    if (!s) {
        report.hazards.push_back({HazardKind::Structure, 0, 0, s.message(), 0});
        return report;
    }
    return m_checker->check(*s);
}

// ---- selection ----------------------------------------------------------------------------------

void Session::setSelectedInstruction(int originalIndex)
{
    if (m_analysis && (originalIndex < -1 || originalIndex >= int(m_analysis->listing.instructions.size())))
        originalIndex = -1;
    if (originalIndex == m_selected) return;
    m_selected = originalIndex;
    Q_EMIT selectionChanged(originalIndex);
}

// ---- measuring ----------------------------------------------------------------------------------

void Session::setEvaluator(std::shared_ptr<eval::Evaluator> evaluator)
{
    m_evaluator = std::move(evaluator);
    m_baselineSet = false;
}

void Session::setEvaluatorFactory(EvaluatorFactory factory)
{
    m_evaluatorFactory = std::move(factory);
}

void Session::setCubinBuilder(CubinBuilder builder)
{
    m_cubinBuilder = std::move(builder);
}

void Session::setScheduleEvaluate(ScheduleEvaluate evaluate)
{
    m_scheduleEvaluate = std::move(evaluate);
}

QString Session::measureUnavailableReason(int variantId) const
{
    const VariantRecord* v = variant(variantId);
    if (!m_analysis || !v) return tr("No kernel is open.");
    if (!m_evaluator && !m_evaluatorFactory)
        return tr(
            "No evaluator: this build has no GPU worker and the estimate backend is not implemented yet.");
    if (m_launchSpecPath.isEmpty())
        return tr(
            "No launch spec: choose one with File ▸ Set Launch Spec… (the evaluator needs to know how to "
            "run the kernel).");
    if (!v->isOriginal() && !v->edits.empty() && !m_cubinBuilder && !m_scheduleEvaluate)
        return tr("Measuring an edited variant needs its tuned cubin, and the cubin writer "
                  "(core/rewrite/cubin_writer) is not in this build yet.");
    return {};
}

quint64 Session::measure(int variantId)
{
    const QString why = measureUnavailableReason(variantId);
    if (!why.isEmpty()) {
        Q_EMIT measureFailed(variantId, why);
        return 0;
    }
    const VariantRecord* v = variant(variantId);
    auto scheduled = applyEdits(*m_analysis, v->edits);
    if (!scheduled) {
        Q_EMIT measureFailed(variantId, QString::fromStdString(scheduled.message()));
        return 0;
    }
    const quint64 job = ++m_lastJob;
    const std::vector<Edit> edits = v->edits;
    const bool original = v->edits.empty();
    auto input = m_input;
    const int cubinIndex = cubinIndexOf(m_kernel);
    auto analysis = m_analysis;
    const std::string kernel = m_kernel.toStdString();
    const std::string specPath = m_launchSpecPath.toStdString();
    auto builder = m_cubinBuilder;
    auto scheduleEvaluate = m_scheduleEvaluate;
    auto factory = m_evaluatorFactory;
    // The evaluator and the "baseline is set" flag are only touched on the measure thread; the UI
    // thread hands them over through this holder and reads back what the job created.
    struct Shared
    {
        std::shared_ptr<eval::Evaluator> evaluator;
        bool baselineSet = false;
    };
    auto shared = std::make_shared<Shared>(Shared{m_evaluator, m_baselineSet});
    Schedule schedule = std::move(*scheduled);
    ++m_measuring;
    Q_EMIT measureStarted(variantId);
    m_measurePool.start([=, this] {
        auto fail = [&](const QString& message) {
            QMetaObject::invokeMethod(
                this,
                [this, variantId, message, shared] {
                    --m_measuring;
                    if (shared->evaluator && !m_evaluator) m_evaluator = shared->evaluator;
                    Q_EMIT measureFailed(variantId, message);
                },
                Qt::QueuedConnection);
        };
        if (!shared->evaluator) {
            auto made = factory();
            if (!made) return fail(QString::fromStdString(made.message()));
            shared->evaluator = *made;
        }
        const Cubin& original_ = input->cubins[size_t(cubinIndex)].cubin;
        if (!shared->baselineSet) {
            auto spec = eval::loadLaunchSpec(specPath);
            if (!spec) return fail(QString::fromStdString(spec.message()));
            auto st = shared->evaluator->setBaseline(*spec, original_.bytes());
            if (!st) return fail(QString::fromStdString(st.message()));
            shared->baselineSet = true;
        }
        const auto t0 = std::chrono::steady_clock::now();
        VariantFigures figures;
        std::vector<uint8_t> bytes;
        std::optional<eval::EvalResult> direct;
        if (!original && scheduleEvaluate) direct = scheduleEvaluate(*shared->evaluator, schedule);
        if (direct) {
            figures.result = std::move(*direct); // no cubin: no per-cubin metrics either
        } else {
            if (original) {
                bytes = original_.bytes();
            } else {
                if (!builder)
                    return fail(
                        tr("this evaluator needs the tuned cubin, and the cubin writer is not in this "
                           "build yet"));
                auto built = builder(original_, kernel, *analysis, schedule);
                if (!built) return fail(QString::fromStdString(built.message()));
                bytes = std::move(*built);
            }
            figures.result = shared->evaluator->evaluate(bytes);
        }
        if (!bytes.empty() && figures.result.ok()) {
            auto metrics = shared->evaluator->metrics(bytes);
            if (metrics)
                figures.result.metrics.insert(figures.result.metrics.end(), metrics->begin(), metrics->end());
        }
        if (figures.result.source.kind.empty()) figures.result.source.kind = shared->evaluator->sourceKind();
        figures.result.wallMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        figures.when = QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
        QMetaObject::invokeMethod(
            this,
            [this, variantId, edits, figures, shared, analysis] {
                --m_measuring;
                if (analysis == m_analysis) {
                    m_evaluator = shared->evaluator;
                    m_baselineSet = shared->baselineSet;
                }
                VariantRecord* v = mutableVariant(variantId);
                // Dropped when the variant was deleted or edited meanwhile: these figures belong to
                // a schedule that no longer exists.
                if (!v || v->edits != edits || analysis != m_analysis) {
                    Q_EMIT measureFailed(variantId, tr("the variant changed while it was being measured"));
                    return;
                }
                v->figures = figures;
                Q_EMIT variantChanged(variantId);
                Q_EMIT measureFinished(variantId);
                markModified();
            },
            Qt::QueuedConnection);
    });
    return job;
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

void Session::applyPendingSession()
{
    std::unique_ptr<PendingSession> pending = std::move(m_pending);
    QStringList problems;
    std::vector<VariantRecord> variants;
    for (const VariantRecord& r : pending->file.variants) {
        if (r.parent < 0 && r.id != 0) continue; // only one original
        if (!r.edits.empty()) {
            auto s = applyEdits(*m_analysis, r.edits);
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
    recomputeSchedule();
    Q_EMIT variantsChanged();
    Q_EMIT currentVariantChanged(m_current);
    Q_EMIT scheduleChanged();
    setSelectedInstruction(pending->file.selected);
    m_modified = false;
    Q_EMIT modifiedChanged(false);
    if (!problems.isEmpty())
        Q_EMIT sessionRestoreFailed(
            tr("Some variants no longer apply to this kernel:\n%1").arg(problems.join('\n')));
    Q_EMIT sessionRestored();
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
