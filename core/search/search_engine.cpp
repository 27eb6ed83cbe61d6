#include "core/search/search_engine.h"

#include "core/analysis/kernel_analysis.h"
#include "core/rewrite/block_positions.h"
#include "core/search/list_schedule.h"
#include "core/search/search_strategy.h"

#include <cmath>
#include <sstream>
#include <thread>

namespace sassx::search {

namespace {

// Consecutive steps that found no legal edit before a run declares its space exhausted.
constexpr int kMaxEmptySteps = 50;

std::string rngState(const std::mt19937_64& rng)
{
    std::ostringstream out;
    out << rng;
    return out.str();
}

} // namespace

SearchEngine::SearchEngine(const LegalityChecker& checker, CandidateEvaluator& evaluator)
    : m_checker(checker), m_evaluator(evaluator)
{
}

SearchEngine::~SearchEngine() = default;

Status SearchEngine::start(const SearchConfig& config)
{
    if (Status s = config.validate(); !s) return s;
    m_state = SearchState{};
    m_state.config = config;
    m_rng.seed(config.seed);
    m_proposer = std::make_unique<EditProposer>(m_checker, config.space);
    if (config.guide == ProposalGuide::Stalls) {
        if (m_guide.empty()) return makeError("a stall-guided search needs stall samples of the kernel");
        m_proposer->setGuide(m_guide);
    }
    m_startSchedule = Schedule::identity(m_checker.analysis());
    m_incumbentSchedule = m_startSchedule;
    m_state.legalAtStart = int64_t(m_proposer->countLegal(m_startSchedule));
    m_legalNow = m_state.legalAtStart;
    m_strategy = makeStrategy(config.algorithm);
    if (!m_strategy) return makeError("no strategy for the algorithm " + algorithmName(config.algorithm));
    m_emptyProposals = 0;
    m_exhausted = false;
    if (Status s = m_strategy->begin(context(), false); !s) return s;
    m_state.rng = rngState(m_rng);
    return Ok{};
}

Status SearchEngine::resume(SearchState state, int64_t budgetEvals, double budgetSeconds)
{
    if (budgetEvals > 0 || budgetSeconds > 0) {
        state.config.budgetEvals = budgetEvals;
        state.config.budgetSeconds = budgetSeconds;
        state.finished = false;
        state.stopReason.reset();
    }
    if (Status s = state.config.validate(); !s) return s;
    std::istringstream in(state.rng);
    in >> m_rng;
    if (in.fail()) return makeError("the checkpoint's random state is unreadable");
    m_state = std::move(state);
    if (m_state.finished && m_state.stopReason == StopReason::Stopped) m_state.finished = false;
    m_proposer = std::make_unique<EditProposer>(m_checker, m_state.config.space);
    if (m_state.config.guide == ProposalGuide::Stalls) {
        if (m_guide.empty()) return makeError("a stall-guided search needs stall samples of the kernel");
        m_proposer->setGuide(m_guide);
    }
    m_startSchedule = scheduleOf(m_state.start);
    m_incumbentSchedule = scheduleOf(m_state.incumbent);
    m_legalNow = m_state.legalAtStart;
    m_strategy = makeStrategy(m_state.config.algorithm);
    if (!m_strategy)
        return makeError("no strategy for the algorithm " + algorithmName(m_state.config.algorithm));
    m_emptyProposals = 0;
    m_exhausted = false;
    if (Status s = m_strategy->begin(context(), true); !s) return s;
    return Ok{};
}

Schedule SearchEngine::scheduleOf(int index) const
{
    const auto& a = m_checker.analysis();
    if (index < 0) return Schedule::identity(a);
    auto s = applyEdits(a, m_state.editsOf(index), [this](Schedule& x) { m_checker.fixReuse(x); });
    return s ? std::move(*s) : Schedule::identity(a);
}

double SearchEngine::now() const
{
    return m_secondsAtStart +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - m_runStart).count();
}

bool SearchEngine::budgetSpent() const
{
    const SearchConfig& c = m_state.config;
    if (c.budgetEvals > 0 && m_state.evaluations() >= c.budgetEvals) return true;
    if (c.budgetSeconds > 0 && now() >= c.budgetSeconds) return true;
    return false;
}

double SearchEngine::temperature() const
{
    return m_strategy ? m_strategy->temperature(context()) : 0.0;
}

double SearchEngine::temperatureUnit() const
{
    // A temperature means something only against the noise: one unit is the smallest difference this
    // kernel's measurements resolve.
    return std::max(m_evaluator.noiseFloor(), kMinTemperatureUnit);
}

void SearchEngine::restoreBest()
{
    // The search hands back its best, not wherever its walk ended.
    if (m_state.incumbent == m_state.best) return;
    Schedule best = scheduleOf(m_state.best);
    // The best may be a re-measure of the incumbent itself: then only its figure changes.
    if (best.order == m_incumbentSchedule.order && best.control == m_incumbentSchedule.control) {
        m_state.incumbentSpeedup = m_state.bestSpeedup;
        return;
    }
    setIncumbent(m_state.best, m_state.bestSpeedup, best);
}

bool SearchEngine::listPhase() const
{
    const SearchConfig& c = m_state.config;
    return m_strategy && m_strategy->wantsListPhase(c) &&
           m_state.listScheduleNext < listCandidateCount(c.space);
}

SearchStatus SearchEngine::status() const
{
    SearchStatus s;
    s.evaluations = m_state.evaluations();
    s.seconds = m_state.seconds;
    const double runSeconds = m_state.seconds - m_secondsAtStart;
    if (runSeconds > 0) s.evalsPerSecond = double(s.evaluations - m_evaluationsAtStart) / runSeconds;
    s.temperature = temperature();
    s.incumbentSpeedup = m_state.incumbentSpeedup;
    s.bestSpeedup = m_state.bestSpeedup;
    s.best = m_state.best;
    s.legalMoves = m_legalNow;
    s.phase = listPhase() ? "list schedule" : algorithmName(m_state.config.algorithm);
    return s;
}

const SearchState& SearchEngine::run(const SearchCallbacks& callbacks, const SearchControl& control)
{
    m_callbacks = &callbacks;
    m_control = &control;
    m_runStart = std::chrono::steady_clock::now();
    m_secondsAtStart = m_state.seconds;
    m_evaluationsAtStart = m_state.evaluations();
    m_lastCheckpointEvals = m_state.evaluations();
    m_lastCheckpointSeconds = m_state.seconds;
    const double secondsBefore = m_state.seconds;
    auto stopped = [&] { return control.stop && control.stop->load(); };
    while (!m_state.finished) {
        if (stopped()) {
            m_state.stopReason = StopReason::Stopped;
            break;
        }
        if (control.pause && control.pause->load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            // Paused time is not search time: the clock restarts from where it stood.
            m_secondsAtStart = m_state.seconds;
            m_runStart = std::chrono::steady_clock::now();
            continue;
        }
        if (budgetSpent()) {
            m_state.finished = true;
            m_state.stopReason = StopReason::Budget;
            break;
        }
        if (listPhase()) {
            listStep();
        } else if (m_strategy->ended(context())) {
            // the strategy said why
        } else if (m_exhausted || m_emptyProposals >= kMaxEmptySteps) {
            m_state.finished = true;
            m_state.stopReason = StopReason::Exhausted;
        } else {
            m_strategy->step(context());
        }
        m_state.seconds = now();
        if (checkpointDue(control)) checkpoint();
    }
    m_state.seconds = now();
    if (m_state.finished && m_strategy->restoresBestAtEnd()) restoreBest();
    checkpoint();
    m_timeSplit.runSeconds += m_state.seconds - secondsBefore;
    m_callbacks = nullptr;
    m_control = nullptr;
    return m_state;
}

bool SearchEngine::checkpointDue(const SearchControl& control) const
{
    // A checkpoint writes the whole history, so past a few hundred evaluations they are spaced by a share
    // of it: the writing stays a bounded share of the run (it was most of a long one: docs/search.md,
    // "Checkpoints"), and a kill loses at most that share of the evaluations.
    const int64_t since = m_state.evaluations() - m_lastCheckpointEvals;
    const auto share = int64_t(std::ceil(control.checkpointShare * double(m_state.evaluations())));
    if (since >= std::max<int64_t>(control.checkpointEvery, share)) return true;
    return m_state.seconds - m_lastCheckpointSeconds >= control.checkpointSeconds && since >= share;
}

void SearchEngine::checkpoint()
{
    m_state.rng = rngState(m_rng);
    m_lastCheckpointEvals = m_state.evaluations();
    m_lastCheckpointSeconds = m_state.seconds;
    const auto t0 = std::chrono::steady_clock::now();
    if (m_callbacks && m_callbacks->onCheckpoint) m_callbacks->onCheckpoint(m_state);
    m_timeSplit.checkpointSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void SearchEngine::publishEvaluation(const SearchEvaluation& e)
{
    if (m_callbacks && m_callbacks->onEvaluation) m_callbacks->onEvaluation(e, status());
}

void SearchEngine::publish(int step)
{
    // A copy: a callback may not hold references into the history, which grows.
    const SearchEvaluation copy = m_state.history.at(size_t(step));
    publishEvaluation(copy);
}

void SearchEngine::publishFrom(size_t from)
{
    for (size_t i = from; i < m_state.history.size(); ++i)
        publish(int(i));
}

std::vector<eval::EvalResult> SearchEngine::evaluate(const std::vector<Candidate>& candidates,
                                                     const EvalRequest& request)
{
    std::vector<Schedule> schedules;
    schedules.reserve(candidates.size());
    for (const auto& c : candidates)
        schedules.push_back(c.schedule);
    const auto t0 = std::chrono::steady_clock::now();
    auto results = m_evaluator.evaluate(schedules, request);
    m_timeSplit.evaluateSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++m_timeSplit.batches;
    m_timeSplit.candidates += int64_t(candidates.size());
    for (const auto& r : results) {
        m_timeSplit.busySeconds += r.wallMs / 1000.0;
        for (const auto& [phase, ms] : r.phaseMs)
            m_timeSplit.phaseSeconds[phase] += ms / 1000.0;
    }
    results.resize(candidates.size(),
                   eval::failedResult(eval::failure::kError, "the evaluator gave no answer"));
    return results;
}

nlohmann::json toJson(const SearchTimeSplit& t, int parallelism)
{
    nlohmann::json phases = nlohmann::json::object();
    for (const auto& [name, seconds] : t.phaseSeconds)
        phases[name + "_s"] = seconds;
    nlohmann::json strategy = nlohmann::json::object();
    for (const auto& [name, seconds] : t.strategySeconds)
        strategy[name + "_s"] = seconds;
    const double capacity = double(std::max(1, parallelism)) * t.evaluateSeconds;
    return {{"run_s", t.runSeconds},
            {"evaluator_s", t.evaluateSeconds},
            {"checkpoint_s", t.checkpointSeconds},
            {"outside_evaluator_s", std::max(0.0, t.runSeconds - t.evaluateSeconds - t.checkpointSeconds)},
            {"measuring_s", t.busySeconds},
            {"worker_phases", phases},
            {"strategy_phases", strategy},
            {"pool_busy_share", capacity > 0 ? t.busySeconds / capacity : 0.0},
            {"batches", t.batches},
            {"mean_batch", t.batches > 0 ? double(t.candidates) / double(t.batches) : 0.0},
            {"note", "measuring_s: each measurement's time as the pool saw it, summed over the GPUs; "
                     "pool_busy_share: measuring_s / (GPUs x evaluator_s)"}};
}

const SearchEvaluation& SearchEngine::record(const Candidate& c, std::string kind, const eval::EvalResult& r,
                                             double t)
{
    return recordInHistory(c, std::move(kind), r, t);
}

void SearchEngine::accept(int step)
{
    m_state.history.at(size_t(step)).outcome = Outcome::Accepted;
}

SearchEvaluation& SearchEngine::recordInHistory(const Candidate& c, std::string kind,
                                                const eval::EvalResult& r, double t)
{
    SearchEvaluation e;
    e.step = int(m_state.history.size());
    e.seconds = now();
    e.base = c.base;
    e.edits = c.edits;
    e.kind = std::move(kind);
    e.figures = speedupFigures(r);
    chainToOriginal(e.figures, m_state.incumbentSpeedup);
    e.outcome = e.figures.ok ? Outcome::Rejected : Outcome::Failed;
    e.temperature = t;
    // A new best is reportable (deterministic or confirmed on fresh rounds) and clearly faster than
    // the original; the final report re-measures it anyway.
    if (e.figures.reportable() && e.figures.clearlyAbove(1.0) && e.figures.speedup > m_state.bestSpeedup) {
        e.best = true;
        m_state.best = e.step;
        m_state.bestSpeedup = e.figures.speedup;
        m_state.timeToBest = e.seconds;
    }
    m_state.history.push_back(std::move(e));
    m_state.seconds = now();
    return m_state.history.back();
}

void SearchEngine::setAgent(std::unique_ptr<ScheduleAgent> agent)
{
    m_agent = std::move(agent);
}

bool SearchEngine::admit(const Schedule& from, const Schedule& to)
{
    if (quickLegal(from, to)) return true;
    ++m_state.refusedByCheck;
    return false;
}

bool SearchEngine::quickLegal(const Schedule& from, const Schedule& to) const
{
    // Proposals come from the checker's legal edits; the schedule is checked once more so a search can
    // never evaluate an illegal variant, whatever the proposer's composition does. `from` is legal (the
    // start, or an incumbent that passed this check), so the blocks it changed suffice.
    const auto& cfg = m_checker.analysis().cfg;
    CheckOptions quick;
    quick.stopAtFirst = true;
    for (Position p : from.positions()) {
        const InstrId i = to.order[p];
        const int block = blockAt(cfg, p);
        if (i != from.order[p] || !(to.control[i] == from.control[i]))
            if (quick.blocks.empty() || quick.blocks.back() != block) quick.blocks.push_back(block);
    }
    return m_checker.check(to, quick).legal();
}

int SearchEngine::batchSize() const
{
    // With N GPUs, batches of N waited for their slowest race: on four H200s the default search ran at
    // 1.57x (attention_fwd) its one-GPU rate; with 4 candidates per GPU (the pool hands each idle worker
    // the next one) at 2.09x, and with 16, after the worker's input was fixed, at 3.33x in race rounds
    // per second (docs/status.md, "Batches on a GPU pool").
    const int workers = std::max(1, m_evaluator.parallelism());
    int64_t batch = workers == 1 ? 1 : int64_t(workers) * m_state.config.candidatesPerGpu;
    if (m_state.config.budgetEvals > 0)
        batch = std::min(batch, std::max<int64_t>(1, m_state.config.budgetEvals - m_state.evaluations()));
    return int(batch);
}

std::vector<Candidate> SearchEngine::proposeFrom(int base, const Schedule& from, int minEdits, int maxEdits)
{
    const int batch = std::max(1, m_evaluator.parallelism());
    std::vector<Candidate> out;
    for (int b = 0; b < batch; ++b) {
        Candidate c;
        c.base = base;
        c.schedule = from;
        const int k = std::uniform_int_distribution<int>(minEdits, maxEdits)(m_rng);
        c.edits = m_proposer->propose(c.schedule, m_rng, k);
        if (c.edits.empty()) continue;
        if (!admit(from, c.schedule)) continue;
        out.push_back(std::move(c));
    }
    noteProposals(!out.empty());
    m_state.steps += batch;
    return out;
}

void SearchEngine::listStep()
{
    const SearchSpace space = m_state.config.space;
    const auto [name, share] = listCandidate(space, m_state.listScheduleNext);
    auto cached = m_listEdits.find(name);
    if (cached == m_listEdits.end()) {
        Schedule s = Schedule::identity(m_checker.analysis());
        auto edits =
            applyListHeuristic(m_checker, *m_proposer, name, s, m_control ? m_control->stop : nullptr);
        if (m_control && m_control->stop && m_control->stop->load()) return; // redone on resume
        cached = m_listEdits.emplace(name, std::move(edits)).first;
    }
    ++m_state.listScheduleNext;
    const auto& all = cached->second;
    const size_t count = size_t(std::ceil(share * double(all.size())));
    // A share that adds nothing to the previous one of the same heuristic is not evaluated twice.
    const size_t previous =
        share <= 0.25 ? 0 : size_t(std::ceil((share == 1.0 ? 0.5 : 0.25) * double(all.size())));
    if (count > 0 && count != previous) {
        Candidate c;
        c.edits.assign(all.begin(), all.begin() + std::ptrdiff_t(count));
        auto s = applyEdits(m_checker.analysis(), c.edits, [this](Schedule& x) { m_checker.fixReuse(x); });
        if (s && m_checker.check(*s, CheckOptions{true, {}}).legal()) {
            c.schedule = std::move(*s);
            auto results = evaluate({c}, EvalRequest{1.0 / m_state.bestSpeedup, false});
            const char* shareName = share <= 0.25 ? " 1/4" : share <= 0.5 ? " 1/2" : "";
            const SearchEvaluation& e = record(c, "list:" + name + shareName, results[0], 0.0);
            if (m_strategy->listPhaseIsTheSearch() && e.best) accept(e.step);
            publish(e.step);
        } else if (s) {
            ++m_state.refusedByCheck;
        }
    }
    if (!listPhase() && !m_strategy->listPhaseIsTheSearch()) {
        // The others start from the best list schedule, if one beat the original.
        m_state.start = m_state.best;
        m_startSchedule = scheduleOf(m_state.start);
        if (m_state.best >= 0) m_state.history[size_t(m_state.best)].outcome = Outcome::Accepted;
        setIncumbent(m_state.start, m_state.bestSpeedup, m_startSchedule);
    }
}

void SearchEngine::setIncumbent(int index, double speedup, const Schedule& schedule)
{
    m_state.incumbent = index;
    m_state.incumbentSpeedup = speedup;
    m_incumbentSchedule = schedule;
}

void SearchEngine::remeasureIncumbent()
{
    m_stepsSinceRemeasure = 0;
    if (!measured()) return; // deterministic: nothing to learn
    if (budgetSpent()) return;
    Candidate c;
    c.base = m_state.incumbent;
    c.schedule = m_incumbentSchedule;
    auto results = evaluate({c}, EvalRequest{1.0 / m_state.incumbentSpeedup, true});
    SearchEvaluation& e = recordInHistory(c, "re-measure", results[0], temperature());
    e.outcome = Outcome::Measure;
    if (e.figures.ok) m_state.incumbentSpeedup = e.figures.speedup;
    // The walk (or a climb through false acceptances) fell clearly below its best: back to the best.
    if (e.figures.ok && m_state.best >= 0 && m_state.best != m_state.incumbent &&
        e.figures.high < m_state.bestSpeedup && m_strategy->returnsToBestBelowIt(context()))
        restoreBest();
    publish(e.step);
}

int64_t SearchEngine::countTowardsRemeasure(int64_t evaluations)
{
    return m_stepsSinceRemeasure += evaluations;
}

void SearchEngine::finish(StopReason why)
{
    m_state.finished = true;
    m_state.stopReason = why;
}

void SearchEngine::noteProposals(bool found)
{
    m_emptyProposals = found ? 0 : m_emptyProposals + 1;
}

void SearchEngine::addStrategySeconds(const std::string& phase, double seconds)
{
    m_timeSplit.strategySeconds[phase] += seconds;
}

ClimbState& SearchEngine::climbState()
{
    if (!m_state.climb) m_state.climb.emplace();
    return *m_state.climb;
}

void SearchEngine::saveAgent()
{
    if (m_agent) m_state.agentBytes = m_agent->save();
}

bool SearchEngine::measured() const
{
    return m_evaluator.sourceKind() != eval::FigureKind::Estimate;
}

} // namespace sassx::search
