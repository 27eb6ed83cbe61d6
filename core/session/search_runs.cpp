#include "core/session/search_runs.h"

#include "core/eval/speedup.h"
#include "core/rewrite/edit_compaction.h"
#include "core/session/search_run.h"
#include "core/session/session_store.h"
#include "core/session/variant_tree.h"

#include "core/eval/launch_spec.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <filesystem>

namespace sassx {

using search::SearchConfig;
using search::SpeedupFigures;

namespace {

// A search's chain of edits (hundreds of back-and-forth moves) as the short list that reaches the same
// schedule (core/rewrite/edit_compaction.h); the long one when no short one replays exactly.
std::vector<Edit> shortEdits(const KernelWorkspace& k, std::vector<Edit> edits)
{
    auto s = k.schedule(edits);
    if (!s) return edits;
    auto shorter = compactEdits(k.analysis(), *s, [&k](Schedule& x) { k.checker().fixReuse(x); });
    return shorter ? std::move(*shorter) : edits;
}

// A search's speed-up as variant figures: the same timing ratio (variant / original) the evaluator
// reported, with its interval and source, so the variants panel shows it like a measurement of its own.
std::optional<VariantFigures> figuresOf(const SpeedupFigures& f, double baselineUs)
{
    if (!f.reportable() || !(f.speedup > 0) || f.source.empty()) return std::nullopt;
    auto inv = [](double x) { return x > 0 ? 1.0 / x : 0.0; };
    VariantFigures v;
    v.result.correct = true;
    v.result.source = f.source;
    eval::TimingFigures t;
    t.ratio.median = inv(f.speedup);
    t.ratio.low = inv(f.high);
    t.ratio.high = inv(f.low);
    t.ratio.rounds = f.rounds;
    t.confirmed = f.confirmed;
    t.noiseFloor = f.noiseFloor;
    t.baselineMedianUs = baselineUs;
    t.candidateMedianUs = baselineUs * t.ratio.median;
    v.result.timing = t;
    v.when = QDateTime::currentDateTime().toString(Qt::ISODate).toStdString();
    return v;
}

double baselineUsOf(const nlohmann::json& report)
{
    if (!report.is_object() || !report.contains("baseline") || !report.at("baseline").is_object()) return 0.0;
    return report.at("baseline").value("median_us", 0.0);
}

// A search's figure in a variant's name, "1.0556×", with "est." when the estimate gave it.
QString nameFigure(double s, bool estimate)
{
    return QString::fromStdString(eval::Speedup{s, {}, 0.0, estimate}.text());
}

} // namespace

SearchRuns::SearchRuns(VariantTree* variants, const SessionStore* store, QObject* parent)
    : QObject(parent), m_variants(variants), m_store(store)
{
    connect(m_search.get(), &SearchJob::finished, this, &SearchRuns::finishSearch);
    connect(m_search.get(), &SearchJob::failed, this, &SearchRuns::searchFailed);
}

SearchRuns::~SearchRuns() = default;

void SearchRuns::reset()
{
    // A search of the old kernel stops (it still writes its outputs); its result will not be kept here.
    if (m_search->isRunning() && m_search->kernel() != m_variants->kernel()) m_search->stop();
    m_searches.clear();
    Q_EMIT searchRecordsChanged();
}

void SearchRuns::setLaunchSpec(const QString& path)
{
    if (path == m_launchSpec) return;
    m_launchSpec = path;
    Q_EMIT launchSpecChanged();
}

void SearchRuns::replace(std::vector<SearchRecord> records)
{
    m_searches = std::move(records);
    Q_EMIT searchRecordsChanged();
}

namespace {

// Moves directory `from` to `to` (a rename, or a copy and a removal across file systems). False, with
// `from` left whole, when it cannot.
bool moveDirectory(const std::filesystem::path& from, const std::filesystem::path& to)
{
    std::error_code ec;
    std::filesystem::create_directories(to.parent_path(), ec);
    std::filesystem::rename(from, to, ec);
    if (!ec) return true;
    std::filesystem::copy(from, to, std::filesystem::copy_options::recursive, ec);
    if (ec) {
        std::filesystem::remove_all(to, ec);
        return false;
    }
    std::filesystem::remove_all(from, ec);
    return true;
}

} // namespace

void SearchRuns::moveOutputsBeside(const QString& dir)
{
    const QString scratch =
        QDir(QFileInfo(SessionStore::autosavePath()).absolutePath()).filePath(QStringLiteral("searches"));
    const QString target = QDir(dir).filePath(QStringLiteral("searches"));
    if (QDir(scratch).absolutePath() == QDir(target).absolutePath()) return;
    for (SearchRecord& r : m_searches) {
        const QString out = QString::fromStdString(r.outDir);
        if (!out.startsWith(scratch + QLatin1Char('/'))) continue;
        if (m_search->isRunning() && m_search->outDir() == out) continue;
        QString to = QDir(target).filePath(QFileInfo(out).fileName());
        for (int n = 2; QFileInfo::exists(to); ++n)
            to = QDir(target).filePath(QFileInfo(out).fileName() + QStringLiteral("-%1").arg(n));
        if (moveDirectory(out.toStdString(), to.toStdString())) r.outDir = to.toStdString();
    }
}

QString SearchRuns::searchUnavailableReason() const
{
    if (!m_variants->kernel()) return tr("No kernel is open.");
    if (m_launchSpec.isEmpty())
        return tr("No launch spec: choose one with File ▸ Set Launch Spec… (a search evaluates the kernel "
                  "the way the spec launches it).");
    if (m_search->isRunning()) return tr("A search is already running.");
    return {};
}

QString SearchRuns::searchOutDir(const SearchConfig& config) const
{
    const QString sessionPath = m_store->sessionPath();
    const QString base = sessionPath.isEmpty() ? QFileInfo(SessionStore::autosavePath()).absolutePath()
                                               : QFileInfo(sessionPath).absolutePath();
    QString algo = QString::fromStdString(search::algorithmName(config.algorithm));
    if (config.preset != search::AnnealPreset::Default)
        algo += QLatin1Char('-') + QString::fromStdString(search::presetName(config.preset));
    const QString name = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                         QLatin1Char('-') + algo + QLatin1Char('-') +
                         QString::fromStdString(config.spaceRequested());
    const QDir dir(QDir(base).filePath(QStringLiteral("searches")));
    QString path = dir.filePath(name);
    for (int n = 2; QFileInfo::exists(path); ++n)
        path = dir.filePath(name + QStringLiteral("-%1").arg(n));
    return path;
}

QString SearchRuns::startSearch(const SearchConfig& config)
{
    return startSearch(config, m_options);
}

QString SearchRuns::startSearch(const SearchConfig& config, const EvaluatorOptions& options)
{
    if (QString why = searchUnavailableReason(); !why.isEmpty()) return why;
    const auto kernel = m_variants->kernel();
    if (Status s = config.validate(); !s) return QString::fromStdString(s.message());
    if (Status s = validate(options); !s) return QString::fromStdString(s.message());
    auto spec = eval::loadLaunchSpec(m_launchSpec.toStdString());
    if (!spec) return tr("the launch spec: %1").arg(QString::fromStdString(spec.message()));
    if (!spec->kernel.empty() && spec->kernel != kernel->name())
        return tr("the launch spec %1 launches kernel '%2', not '%3'")
            .arg(QFileInfo(m_launchSpec).fileName(), QString::fromStdString(spec->kernel),
                 QString::fromStdString(m_variants->kernel()->name()));
    const QString dir = searchOutDir(config);
    if (!QDir().mkpath(dir)) return tr("cannot create %1").arg(dir);
    if (!m_search->start(kernel, std::move(*spec), options, config, dir))
        return tr("A search is already running.");
    return {};
}

QString SearchRuns::resumeSearch(const QString& dir, const EvaluatorOptions& options, int64_t budgetEvals,
                                 double budgetSeconds)
{
    if (QString why = searchUnavailableReason(); !why.isEmpty()) return why;
    const auto kernel = m_variants->kernel();
    if (Status s = validate(options); !s) return QString::fromStdString(s.message());
    auto saved = readSearchCheckpoint(dir.toStdString());
    if (!saved) return QString::fromStdString(saved.message());
    auto spec = eval::loadLaunchSpec(m_launchSpec.toStdString());
    if (!spec) return tr("the launch spec: %1").arg(QString::fromStdString(spec.message()));
    SearchConfig config = saved->config;
    config.budgetEvals = budgetEvals;
    config.budgetSeconds = budgetSeconds;
    // The run itself refuses a checkpoint of another kernel (search_run.h), through searchFailed.
    if (!m_search->start(kernel, std::move(*spec), options, config, dir, {}, true))
        return tr("A search is already running.");
    return {};
}

void SearchRuns::finishSearch(const SearchJobResult& result)
{
    const auto kernel = m_variants->kernel();
    if (m_search->kernel() != kernel) {
        Q_EMIT searchFailed(
            tr("the search finished on a kernel that is no longer open; its outputs are in %1")
                .arg(QString::fromStdString(result.outDir)));
        return;
    }
    SearchRecord record;
    record.config = result.state.config;
    record.history = result.state.history;
    record.report = result.report.json;
    record.outDir = result.outDir;
    int variantId = -1;
    if (result.report.improved && result.state.best >= 0) {
        const nlohmann::json& best = record.report.value("best", nlohmann::json::object());
        const SpeedupFigures final =
            search::speedupFiguresFromJson(best.value("final", nlohmann::json::object()));
        const QString name =
            QString::fromStdString(record.label()) + QStringLiteral(" best ") +
            nameFigure(final.speedup > 0 ? final.speedup : result.state.bestSpeedup,
                       final.source.empty() ? eval::parseBackend(record.backend()) == eval::Backend::Estimate
                                            : final.source.isEstimate());
        variantId =
            m_variants->addVariant(0, name, shortEdits(*kernel, result.state.editsOf(result.state.best)));
        if (auto figures = figuresOf(final, baselineUsOf(record.report))) {
            VariantRecord r = *m_variants->variant(variantId);
            r.figures = std::move(figures);
            m_variants->restoreVariant(r);
        }
    }
    m_searches.push_back(std::move(record));
    Q_EMIT edited();
    Q_EMIT searchRecorded(int(m_searches.size()) - 1, variantId);
}

int SearchRuns::openSearchEvaluation(int record, int step, QString* error)
{
    auto fail = [error](const QString& why) {
        if (error) *error = why;
        return -1;
    };
    const auto kernel = m_variants->kernel();
    if (!kernel) return fail(tr("No kernel is open."));
    const std::vector<search::SearchEvaluation>* history = nullptr;
    SearchConfig config;
    double baselineUs = 0.0;
    if (record >= 0) {
        if (record >= int(m_searches.size())) return fail(tr("no search %1 in this session").arg(record));
        history = &m_searches[size_t(record)].history;
        config = m_searches[size_t(record)].config;
        baselineUs = baselineUsOf(m_searches[size_t(record)].report);
    } else {
        if (m_search->kernel() != kernel) return fail(tr("the last search ran on another kernel"));
        history = &m_search->history();
        config = m_search->config();
    }
    auto edits = editsOfEvaluation(*history, step);
    if (!edits) return fail(QString::fromStdString(edits.message()));
    if (auto s = kernel->schedule(*edits); !s)
        return fail(tr("evaluation %1 does not replay on this kernel: %2")
                        .arg(step)
                        .arg(QString::fromStdString(s.message())));
    *edits = shortEdits(*kernel, std::move(*edits));
    // The same schedule opened twice (or the original) is selected, not duplicated.
    const std::vector<VariantRecord>& variants = m_variants->variants();
    auto same = std::find_if(variants.begin(), variants.end(),
                             [&](const VariantRecord& v) { return v.edits == *edits; });
    if (same != variants.end()) {
        m_variants->setCurrentVariant(same->id);
        return same->id;
    }
    const search::SearchEvaluation& e = (*history)[size_t(step)];
    QString name = QString::fromStdString(searchLabel(config)) + QStringLiteral(" #%1 ").arg(step);
    name += e.figures.ok ? nameFigure(e.figures.speedup, e.figures.source.isEstimate()) : tr("failed");
    const int id = m_variants->addVariant(0, name, std::move(*edits));
    if (auto figures = figuresOf(e.figures, baselineUs)) {
        VariantRecord r = *m_variants->variant(id);
        r.figures = std::move(figures);
        m_variants->restoreVariant(r);
    }
    m_variants->setCurrentVariant(id);
    return id;
}

const SearchRecord* SearchRuns::latestPolicyRun() const
{
    for (auto it = m_searches.rbegin(); it != m_searches.rend(); ++it) {
        if (it->config.algorithm != search::Algorithm::Ppo) continue;
        if (QFileInfo::exists(QString::fromStdString(it->outDir) + QStringLiteral("/policy.pt"))) return &*it;
    }
    return nullptr;
}

} // namespace sassx
