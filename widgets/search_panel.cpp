#include "widgets/search_panel.h"

#include "core/session/variant_record.h"

#include "core/session/gpu_list.h"
#include "core/session/ppo_setup.h"
#include "core/session/search_runs.h"
#include "core/session/variant_tree.h"
#include "widgets/search_plot.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace sassx {

using search::SearchConfig;
using search::SearchSpace;

namespace {

// The unit of the budget box: the unit combo box's item data, never shown or stored as text.
enum class BudgetUnit
{
    Evaluations,
    Seconds,
    Minutes,
};

// "1.0123×", "1.0123× est." under the estimate (core/eval/speedup.h).
QString times(double speedup, bool estimate)
{
    return QString::fromStdString(eval::Speedup{speedup, std::nullopt, 0.0, estimate}.text());
}

// "1.0123× [1.0101, 1.0150]" when the figure has an interval, else the point.
QString speedupWithInterval(double speedup, double low, double high, int rounds, bool estimate)
{
    eval::Speedup s{speedup, std::nullopt, 0.0, estimate};
    if (rounds > 0 && high > low) s.interval = eval::SpeedupInterval{low, high};
    return QString::fromStdString(s.fullText());
}

// A backend's name as the combo, a search job or a record carries it (eval/backend.h).
bool isEstimate(const std::string& backendName)
{
    return eval::parseBackend(backendName) == eval::Backend::Estimate;
}
bool isEstimate(const QString& backendName)
{
    return isEstimate(backendName.toStdString());
}

QLabel* caption(const QString& text, QWidget* parent)
{
    auto* l = new QLabel(text, parent);
    l->setContentsMargins(6, 0, 0, 0);
    return l;
}

} // namespace

SearchPanel::SearchPanel(VariantTree* variants, SearchRuns* searches, QWidget* parent)
    : QWidget(parent), m_variants(variants), m_searches(searches), m_plot(new SearchPlot(this))
{
    buildControls();
    SearchJob* job = m_searches->search();
    connect(job, &SearchJob::started, this, [this, job](const QString&, const QString&) {
        // The auto space is chosen with the backend: the message names it now.
        if (m_announceSpace)
            setMessage(tr("Searching: %1; outputs in %2")
                           .arg(QString::fromStdString(job->config().describe()), job->outDir()));
        m_announceSpace = false;
        updateLiveStatus();
    });
    connect(job, &SearchJob::evaluation, this, &SearchPanel::onEvaluation);
    connect(job, &SearchJob::failed, this,
            [this](const QString& m) { setMessage(tr("Search failed: %1").arg(m), true); });
    connect(job, &SearchJob::runningChanged, this, &SearchPanel::updateButtons);
    connect(job, &SearchJob::pausedChanged, this, [this] {
        updateButtons();
        if (m_shown < 0) updateLiveStatus();
    });
    connect(m_searches, &SearchRuns::searchRecorded, this, [this](int index, int variantId) {
        rebuildRuns();
        showRecord(index);
        const VariantRecord* v = m_variants->variant(variantId);
        if (v) setMessage(tr("The best joined the variants as \"%1\".").arg(QString::fromStdString(v->name)));
    });
    connect(m_searches, &SearchRuns::searchRecordsChanged, this, [this] {
        // Another kernel: what the message said was about the previous one's run.
        if (m_variants->kernel() != m_kernelShown.lock()) setMessage(QString());
        m_kernelShown = m_variants->kernel();
        rebuildRuns();
        const int n = int(m_searches->searches().size());
        showRecord(m_searches->search()->isRunning() || n == 0 ? -1 : n - 1);
    });
    connect(m_searches, &SearchRuns::searchFailed, this, [this](const QString& m) { setMessage(m, true); });
    // Whether a search can start: another kernel (the tree is replaced with it), another launch spec.
    connect(m_variants, &VariantTree::variantsChanged, this, &SearchPanel::updateButtons);
    connect(m_searches, &SearchRuns::launchSpecChanged, this, &SearchPanel::updateButtons);
    connect(m_plot, &SearchPlot::evaluationClicked, this, &SearchPanel::openEvaluation);
    rebuildRuns();
    updateButtons();
    updateLiveStatus();
}

void SearchPanel::buildControls()
{
    m_algorithm = new QComboBox(this);
    m_algorithm->setObjectName(QStringLiteral("searchAlgorithm"));
    m_algorithm->addItem(tr("climb"), QStringLiteral("climb"));
    m_algorithm->addItem(tr("anneal"), QStringLiteral("anneal"));
    m_algorithm->addItem(tr("anneal (sip preset)"), QStringLiteral("anneal:sip"));
    m_algorithm->addItem(tr("greedy"), QStringLiteral("greedy"));
    m_algorithm->addItem(tr("random"), QStringLiteral("random"));
    m_algorithm->addItem(tr("list schedule"), QStringLiteral("listsched"));
    m_algorithm->addItem(tr("PPO agent"), QStringLiteral("ppo"));
    m_algorithm->setToolTip(
        tr("climb (default): tries every legal single edit in turn, races each against the current best "
           "in paired rounds and keeps only what fresh rounds confirm above the noise floor; "
           "anneal: simulated annealing on the measured difference; sip preset: SIP's schedule (single "
           "edits, ends on "
           "its temperature); greedy: first improvement; random: independent random "
           "legal variants; list schedule: one-shot heuristics; PPO agent: a policy learnt "
           "while it searches (CuAsmRL's settings; the run keeps it as policy.pt)"));
    // PPO needs the libtorch plug-in: listed, disabled, with the reason, when it cannot be loaded.
    if (auto plugin = ppoPluginPath(); !plugin) {
        if (auto* model = qobject_cast<QStandardItemModel*>(m_algorithm->model())) {
            QStandardItem* item = model->item(m_algorithm->count() - 1);
            item->setEnabled(false);
            item->setToolTip(QString::fromStdString(plugin.message()));
        }
    }

    m_space = new QComboBox(this);
    m_space->setObjectName(QStringLiteral("searchSpace"));
    // The default, as `sassx-cli search`'s: the run picks the space once it knows its backend.
    m_space->addItem(tr("auto"), QStringLiteral("auto"));
    auto* spaces = qobject_cast<QStandardItemModel*>(m_space->model());
    for (SearchSpace s : {SearchSpace::Mem, SearchSpace::All, SearchSpace::Yield, SearchSpace::AllControl,
                          SearchSpace::Rescheduled}) {
        const QString name = QString::fromStdString(search::spaceName(s));
        m_space->addItem(name, name);
        // A space that cannot be searched yet is listed, disabled, with the reason as its tooltip.
        const QString why = QString::fromStdString(search::spaceUnavailableReason(s));
        if (!why.isEmpty() && spaces) {
            QStandardItem* item = spaces->item(m_space->count() - 1);
            item->setEnabled(false);
            item->setToolTip(why);
        }
    }
    m_space->setToolTip(tr("auto (default): all+control on a GPU, mem under the estimate; mem: moves of "
                           "memory instructions; all: moves of any instruction; yield: yield flips of "
                           "ptxas' order; all+control: moves plus yield and reuse edits"));

    m_budget = new QSpinBox(this);
    m_budget->setRange(0, 10'000'000);
    m_budget->setValue(300);
    // The bottom of the range reads "no limit", never a budget of 0 (core/search/search_budget.h).
    m_budget->setSpecialValueText(tr("no limit"));
    m_budget->setToolTip(tr("no limit: only the sip preset and list scheduling end on their own"));
    m_budgetUnit = new QComboBox(this);
    m_budgetUnit->addItem(tr("evaluations"), int(BudgetUnit::Evaluations));
    m_budgetUnit->addItem(tr("seconds"), int(BudgetUnit::Seconds));
    m_budgetUnit->addItem(tr("minutes"), int(BudgetUnit::Minutes));

    m_backend = new QComboBox(this);
    m_backend->setObjectName(QStringLiteral("searchBackend"));
    for (const auto& [backend, name] : eval::kBackendNames)
        m_backend->addItem(tr(name.data()), QString::fromUtf8(name.data(), qsizetype(name.size())));
    m_backend->setToolTip(tr("auto: the GPU worker pool when a worker finds a usable GPU, else the estimate; "
                             "estimate: the static model (figures are not measurements)"));
    m_gpus = new QLineEdit(this);
    m_gpus->setObjectName(QStringLiteral("searchGpus"));
    m_gpus->setPlaceholderText(tr("GPUs, e.g. 0,1"));
    m_gpus->setMaximumWidth(110);
    m_gpus->setEnabled(false);
    connect(m_backend, &QComboBox::currentIndexChanged, this,
            [this] { m_gpus->setEnabled(chosenBackend() == eval::Backend::Gpu); });

    m_seed = new QSpinBox(this);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(1);

    m_start = new QPushButton(tr("Start"), this);
    m_pause = new QPushButton(tr("Pause"), this);
    m_stop = new QPushButton(tr("Stop"), this);
    m_stop->setToolTip(
        tr("Stop after the evaluation in flight; the run still writes its report and best cubin"));
    connect(m_start, &QPushButton::clicked, this, &SearchPanel::startSearch);
    connect(m_pause, &QPushButton::clicked, this, &SearchPanel::togglePause);
    connect(m_stop, &QPushButton::clicked, this, &SearchPanel::stopSearch);
    m_continue = new QPushButton(tr("Continue…"), this);
    m_continue->setToolTip(tr("Continue a run that was stopped or killed, from its checkpoint"));
    connect(m_continue, &QPushButton::clicked, this, &SearchPanel::chooseRunToContinue);

    m_runs = new QComboBox(this);
    m_runs->setObjectName(QStringLiteral("searchRuns"));
    // Run names are long ("#1 anneal·all · 400 evals · 1.0111× (estimate)"): a combo as wide as the
    // longest would push the dock, and with it the window, wider than the default size.
    m_runs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_runs->setMinimumContentsLength(24);
    connect(m_runs, &QComboBox::currentIndexChanged, this,
            [this](int i) { showRecord(i < 0 ? -1 : m_runs->itemData(i).toInt()); });

    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(4, 2, 4, 0);
    controls->addWidget(caption(tr("Algorithm"), this));
    controls->addWidget(m_algorithm);
    controls->addWidget(caption(tr("Space"), this));
    controls->addWidget(m_space);
    controls->addWidget(caption(tr("Budget"), this));
    controls->addWidget(m_budget);
    controls->addWidget(m_budgetUnit);
    controls->addWidget(caption(tr("Seed"), this));
    controls->addWidget(m_seed);
    controls->addStretch(1);

    // Two rows, so that the dock fits beside the diff at the default window size.
    auto* actions = new QHBoxLayout;
    actions->setContentsMargins(4, 0, 4, 0);
    actions->addWidget(caption(tr("Backend"), this));
    actions->addWidget(m_backend);
    actions->addWidget(m_gpus);
    for (QPushButton* b : {m_start, m_pause, m_stop, m_continue})
        actions->addWidget(b);
    actions->addWidget(caption(tr("Run"), this));
    actions->addWidget(m_runs);
    actions->addStretch(1);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("searchStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true); // an unwrapped label is as wide as its text, and so would the dock be
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("searchMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(controls);
    layout->addLayout(actions);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_status);
    layout->addWidget(m_message);
}

QString SearchPanel::statusText() const
{
    return m_status->text();
}

QString SearchPanel::messageText() const
{
    return m_message->text();
}

void SearchPanel::setMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
}

Result<SearchConfig> SearchPanel::config() const
{
    SearchConfig c;
    const QString algo = m_algorithm->currentData().toString();
    const QString name = algo.section(QLatin1Char(':'), 0, 0);
    auto parsed = search::parseAlgorithm(name.toStdString());
    if (!parsed) return makeError("unknown algorithm '" + name.toStdString() + "'");
    c.algorithm = *parsed;
    const std::string preset = algo.section(QLatin1Char(':'), 1).toStdString();
    auto parsedPreset = search::parsePreset(preset);
    if (!parsedPreset) return makeError("unknown preset '" + preset + "'");
    c.preset = *parsedPreset;
    const std::string spaceName = m_space->currentData().toString().toStdString();
    if (spaceName == "auto") {
        c.autoSpace = search::AutoSpace::Search;
        // Provisional under the auto backend: the run resolves it once a GPU is found or not.
        c.resolveSpace(chosenBackend() != eval::Backend::Estimate);
    } else {
        auto space = search::parseSearchSpace(spaceName);
        if (!space) return makeError("unknown space '" + m_space->currentText().toStdString() + "'");
        c.space = *space;
    }
    const auto unit = BudgetUnit(m_budgetUnit->currentData().toInt());
    if (unit == BudgetUnit::Evaluations)
        c.budgetEvals = m_budget->value();
    else
        c.budgetSeconds = m_budget->value() * (unit == BudgetUnit::Minutes ? 60.0 : 1.0);
    c.seed = uint64_t(m_seed->value());
    if (Status s = c.validate(); !s) return s.error();
    return c;
}

Result<EvaluatorOptions> SearchPanel::evaluatorOptions() const
{
    EvaluatorOptions o = m_searches->evaluatorOptions();
    o.backend = chosenBackend();
    o.gpus.clear();
    if (o.backend == eval::Backend::Gpu && !m_gpus->text().trimmed().isEmpty()) {
        if (Status s = setGpuList(o, m_gpus->text().trimmed().toStdString()); !s) return s.error();
    }
    if (Status s = validate(o); !s) return s.error();
    return o;
}

void SearchPanel::setConfig(const SearchConfig& c)
{
    QString algo = QString::fromStdString(search::algorithmName(c.algorithm));
    if (c.preset != search::AnnealPreset::Default)
        algo += QLatin1Char(':') + QString::fromStdString(search::presetName(c.preset));
    m_algorithm->setCurrentIndex(std::max(0, m_algorithm->findData(algo)));
    m_space->setCurrentIndex(std::max(0, m_space->findData(QString::fromStdString(c.spaceRequested()))));
    if (c.budgetEvals > 0 || c.budgetSeconds <= 0) {
        m_budgetUnit->setCurrentIndex(m_budgetUnit->findData(int(BudgetUnit::Evaluations)));
        m_budget->setValue(int(std::min<int64_t>(c.budgetEvals, m_budget->maximum())));
    } else {
        m_budgetUnit->setCurrentIndex(m_budgetUnit->findData(int(BudgetUnit::Seconds)));
        m_budget->setValue(int(std::lround(c.budgetSeconds)));
    }
    m_seed->setValue(int(std::min<uint64_t>(c.seed, uint64_t(m_seed->maximum()))));
}

eval::Backend SearchPanel::chosenBackend() const
{
    return eval::parseBackend(m_backend->currentData().toString().toStdString())
        .value_or(eval::Backend::Auto);
}

void SearchPanel::setBackend(const QString& backend)
{
    m_backend->setCurrentIndex(std::max(0, m_backend->findData(backend)));
}

void SearchPanel::startSearch()
{
    auto c = config();
    if (!c) return setMessage(QString::fromStdString(c.message()), true);
    auto o = evaluatorOptions();
    if (!o) return setMessage(QString::fromStdString(o.message()), true);
    const QString why = m_searches->startSearch(*c, *o);
    if (!why.isEmpty()) return setMessage(why, true);
    m_liveBest = {};
    m_liveStatus = {};
    {
        const QSignalBlocker block(m_runs);
        m_runs->setCurrentIndex(0);
    }
    m_shown = -1;
    m_plot->clear();
    m_announceSpace = c->autoSpace != search::AutoSpace::Off;
    const QString what = m_announceSpace
                             ? tr("%1 in the space auto picks once the evaluator is chosen")
                                   .arg(QString::fromStdString(search::algorithmName(c->algorithm)))
                             : QString::fromStdString(c->describe());
    setMessage(tr("Searching: %1; outputs in %2").arg(what, m_searches->search()->outDir()));
    updateButtons();
    updateLiveStatus();
}

void SearchPanel::togglePause()
{
    SearchJob* job = m_searches->search();
    if (job->isPaused())
        job->resume();
    else
        job->pause();
}

void SearchPanel::stopSearch()
{
    m_searches->search()->stop();
    setMessage(tr("Stopping after the evaluation in flight; the run still writes its outputs."));
    updateButtons();
}

void SearchPanel::rebuildRuns()
{
    const QSignalBlocker block(m_runs);
    m_runs->clear();
    m_runs->addItem(tr("live run"), -1);
    const auto& records = m_searches->searches();
    for (size_t i = 0; i < records.size(); ++i) {
        const SearchRecord& r = records[i];
        const QString best = r.improved() ? times(r.bestSpeedup(), isEstimate(r.backend())) : tr("no gain");
        m_runs->addItem(QStringLiteral("#%1 %2 · %3 evals · %4 (%5)")
                            .arg(i + 1)
                            .arg(QString::fromStdString(r.label()))
                            .arg(r.history.size())
                            .arg(best, QString::fromStdString(r.backend())),
                        int(i));
    }
    const int at = m_runs->findData(m_shown);
    m_runs->setCurrentIndex(at < 0 ? 0 : at);
}

void SearchPanel::showRecord(int index)
{
    const auto& records = m_searches->searches();
    if (index >= int(records.size())) index = -1;
    m_shown = index;
    {
        const QSignalBlocker block(m_runs);
        m_runs->setCurrentIndex(std::max(0, m_runs->findData(index)));
    }
    if (index < 0) {
        const SearchJob* job = m_searches->search();
        const bool own = job->kernel() && job->kernel() == m_variants->kernel();
        m_plot->setHistory(own ? job->history() : std::vector<search::SearchEvaluation>{});
        m_liveBest = {};
        m_liveStatus = own ? job->status() : search::SearchStatus{};
        if (own)
            for (const auto& e : job->history())
                if (e.best && e.figures.ok) m_liveBest = e.figures;
        updateLiveStatus();
        return;
    }
    const SearchRecord& r = records[size_t(index)];
    m_plot->setHistory(r.history);
    if (r.report.contains("baseline")) m_plot->setNoiseFloor(r.report["baseline"].value("noise_floor", 0.0));
    m_plot->flush();
    updateRecordStatus();
}

void SearchPanel::onEvaluation(const search::SearchEvaluation& row, const search::SearchStatus& status)
{
    if (row.best && row.figures.ok) m_liveBest = row.figures;
    m_liveStatus = status;
    if (m_shown >= 0) return;
    m_plot->append(row);
    updateLiveStatus();
}

QString SearchPanel::backendLabel(const QString& backend, const QString& reason) const
{
    if (backend.isEmpty()) return tr("choosing the evaluator…");
    if (isEstimate(backend)) return tr("estimate — not a measurement");
    return reason.isEmpty() ? tr("measured on GPU") : tr("measured (%1)").arg(reason);
}

void SearchPanel::updateLiveStatus()
{
    const SearchJob* job = m_searches->search();
    if (!job->isRunning() && m_liveStatus.evaluations == 0) {
        m_status->setText(tr("No search yet. %1")
                              .arg(m_searches->searchUnavailableReason().isEmpty()
                                       ? tr("Choose a space and a budget, then Start.")
                                       : m_searches->searchUnavailableReason()));
        return;
    }
    const search::SearchStatus& s = m_liveStatus;
    const QLocale locale;
    QStringList parts;
    if (job->isPaused())
        parts << tr("paused");
    else if (job->isStopping())
        parts << tr("stopping");
    parts << tr("%1 evaluations").arg(locale.toString(qlonglong(s.evaluations)));
    parts << tr("%1/s").arg(QString::number(s.evalsPerSecond, 'f', 1));
    const bool estimate = isEstimate(job->backend());
    m_plot->setEstimate(estimate);
    parts << tr("best %1").arg(m_liveBest.ok
                                   ? speedupWithInterval(m_liveBest.speedup, m_liveBest.low, m_liveBest.high,
                                                         m_liveBest.rounds, estimate)
                                   : times(s.bestSpeedup, estimate));
    parts << (s.legalMoves >= 0 ? tr("%1 legal moves").arg(locale.toString(qlonglong(s.legalMoves)))
                                : tr("legal moves not counted yet"));
    if (!s.phase.empty()) parts << QString::fromStdString(s.phase);
    parts << backendLabel(job->backend(), job->backendReason());
    // Without a GPU a search of yield or reuse edits finds nothing; say why where it runs.
    if (estimate)
        if (const std::string blind = search::estimateBlindSpot(job->config().space); !blind.empty())
            parts << QString::fromStdString(blind);
    m_status->setText(parts.join(QStringLiteral(" · ")));
}

void SearchPanel::updateRecordStatus()
{
    const SearchRecord& r = m_searches->searches()[size_t(m_shown)];
    const nlohmann::json& j = r.report;
    const QLocale locale;
    QStringList parts;
    parts << tr("%1 evaluations").arg(locale.toString(qlonglong(r.history.size())));
    parts << tr("%1/s").arg(QString::number(j.value("evaluations_per_second", 0.0), 'f', 1));
    const nlohmann::json ev = j.value("evaluator", nlohmann::json::object());
    m_plot->setEstimate(isEstimate(ev.value("backend", std::string())));
    if (r.improved()) {
        const nlohmann::json f =
            j.value("best", nlohmann::json::object()).value("final", nlohmann::json::object());
        parts << tr("best %1").arg(speedupWithInterval(f.value("speedup", 1.0), f.value("low", 0.0),
                                                       f.value("high", 0.0), f.value("rounds", 0),
                                                       isEstimate(ev.value("backend", std::string()))));
    } else {
        parts << tr("nothing beat the original");
    }
    const int64_t legal = j.value("legal_edits_at_start", int64_t(-1));
    if (legal >= 0) parts << tr("%1 legal moves at start").arg(locale.toString(qlonglong(legal)));
    parts << backendLabel(QString::fromStdString(ev.value("backend", std::string())),
                          QString::fromStdString(ev.value("reason", std::string())));
    if (const std::string blind = ev.value("blind_spot", std::string()); !blind.empty())
        parts << QString::fromStdString(blind);
    m_status->setText(parts.join(QStringLiteral(" · ")));
    setMessage(QString::fromStdString(j.value("summary", std::string())) + QStringLiteral("\n") +
               tr("Outputs: %1").arg(QString::fromStdString(r.outDir)));
}

void SearchPanel::updateButtons()
{
    const SearchJob* job = m_searches->search();
    const bool running = job->isRunning();
    const QString why = running ? QString() : m_searches->searchUnavailableReason();
    m_start->setEnabled(!running);
    m_start->setToolTip(why.isEmpty() ? tr("Search the current kernel with these settings") : why);
    m_pause->setEnabled(running && !job->isStopping());
    m_pause->setText(job->isPaused() ? tr("Resume") : tr("Pause"));
    m_stop->setEnabled(running && !job->isStopping());
    m_continue->setEnabled(!running);
}

void SearchPanel::chooseRunToContinue()
{
    const QString start = QFileInfo(m_searches->searchOutDir(search::SearchConfig{})).absolutePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Continue a Search Run"), start,
                                                          QFileDialog::ShowDirsOnly);
    if (!dir.isEmpty()) continueRun(dir);
}

void SearchPanel::continueRun(const QString& dir)
{
    auto o = evaluatorOptions();
    if (!o) return setMessage(QString::fromStdString(o.message()), true);
    m_announceSpace = false; // a resumed run keeps the space it started with
    const QString why = m_searches->resumeSearch(dir, *o);
    if (!why.isEmpty()) return setMessage(why, true);
    m_liveBest = {};
    m_liveStatus = m_searches->search()->status();
    {
        const QSignalBlocker block(m_runs);
        m_runs->setCurrentIndex(0);
    }
    m_shown = -1;
    m_plot->clear();
    for (const auto& row : m_searches->search()->history()) {
        if (row.best && row.figures.ok) m_liveBest = row.figures;
        m_plot->append(row);
    }
    setMessage(tr("Continuing %1 from evaluation %2").arg(dir).arg(m_searches->search()->history().size()));
    updateButtons();
    updateLiveStatus();
}

void SearchPanel::openEvaluation(int step)
{
    QString error;
    const int id = m_searches->openSearchEvaluation(m_shown, step, &error);
    if (id < 0) return setMessage(tr("Cannot open evaluation %1: %2").arg(step).arg(error), true);
    const VariantRecord* v = m_variants->variant(id);
    setMessage(tr("Evaluation %1 is variant \"%2\".")
                   .arg(step)
                   .arg(v ? QString::fromStdString(v->name) : QString()));
    Q_EMIT evaluationOpened(id);
}

} // namespace sassx
