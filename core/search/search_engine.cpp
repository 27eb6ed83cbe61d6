#include "core/search/search_engine.h"

#include "core/analysis/kernel_analysis.h"
#include "core/search/list_schedule.h"

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
    if (config.guide == "stalls") {
        if (m_guide.empty()) return makeError("a stall-guided search needs stall samples of the kernel");
        m_proposer->setGuide(m_guide);
    }
    m_startSchedule = Schedule::identity(m_checker.analysis());
    m_incumbentSchedule = m_startSchedule;
    m_state.legalAtStart = int64_t(m_proposer->countLegal(m_startSchedule));
    m_legalNow = m_state.legalAtStart;
    if (config.algorithm == Algorithm::Ppo)
        if (Status s = startAgent(false); !s) return s;
    m_state.rng = rngState(m_rng);
    return Ok{};
}

Status SearchEngine::resume(SearchState state, int64_t budgetEvals, double budgetSeconds)
{
    if (budgetEvals > 0 || budgetSeconds > 0) {
        state.config.budgetEvals = budgetEvals;
        state.config.budgetSeconds = budgetSeconds;
        state.finished = false;
        state.stopReason.clear();
    }
    if (Status s = state.config.validate(); !s) return s;
    std::istringstream in(state.rng);
    in >> m_rng;
    if (in.fail()) return makeError("the checkpoint's random state is unreadable");
    m_state = std::move(state);
    if (m_state.finished && m_state.stopReason == "stopped") m_state.finished = false;
    m_proposer = std::make_unique<EditProposer>(m_checker, m_state.config.space);
    if (m_state.config.guide == "stalls") {
        if (m_guide.empty()) return makeError("a stall-guided search needs stall samples of the kernel");
        m_proposer->setGuide(m_guide);
    }
    m_startSchedule = scheduleOf(m_state.start);
    m_incumbentSchedule = scheduleOf(m_state.incumbent);
    m_legalNow = m_state.legalAtStart;
    if (m_state.config.algorithm == Algorithm::Ppo)
        if (Status s = startAgent(true); !s) return s;
    restoreClimb();
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
    const SearchConfig& c = m_state.config;
    if (c.algorithm != Algorithm::Anneal) return 0.0;
    if (c.preset == "sip") return c.sipT0 * std::pow(1.0 - c.sipCooling, double(m_state.steps));
    double f = 0.0;
    if (c.budgetEvals > 0) f = std::max(f, double(m_state.evaluations()) / double(c.budgetEvals));
    if (c.budgetSeconds > 0) f = std::max(f, now() / c.budgetSeconds);
    return temperatureUnit() * c.t0 * std::pow(c.tEnd / c.t0, std::clamp(f, 0.0, 1.0));
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
    // PPO's episodes start from ptxas' own schedule (docs/ppo.md), so no list schedule seeds them.
    const bool wanted = c.algorithm == Algorithm::ListSchedule ||
                        (c.seedWithListSchedule && spaceHasMoves(c.space) && c.algorithm != Algorithm::Ppo);
    return wanted && m_state.listScheduleNext < listCandidateCount(c.space);
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
    auto stopped = [&] { return control.stop && control.stop->load(); };
    const SearchConfig& c = m_state.config;
    while (!m_state.finished) {
        if (stopped()) {
            m_state.stopReason = "stopped";
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
            m_state.stopReason = "budget";
            break;
        }
        if (listPhase()) {
            listStep();
        } else if (c.algorithm == Algorithm::ListSchedule) {
            m_state.finished = true;
            m_state.stopReason = "done";
        } else if (c.preset == "sip" &&
                   (temperature() < c.sipTMin || m_state.steps >= int64_t(c.sipMaxSteps))) {
            m_state.finished = true;
            m_state.stopReason = "temperature";
        } else if (m_emptyProposals >= kMaxEmptySteps) {
            m_state.finished = true;
            m_state.stopReason = "exhausted";
        } else if (c.algorithm == Algorithm::Random) {
            randomStep();
        } else if (c.algorithm == Algorithm::Ppo) {
            ppoStep();
        } else if (c.algorithm == Algorithm::Climb) {
            climbStep();
        } else {
            annealStep(c.algorithm == Algorithm::Greedy);
        }
        m_state.seconds = now();
        if (m_state.evaluations() - m_lastCheckpointEvals >= control.checkpointEvery ||
            m_state.seconds - m_lastCheckpointSeconds >= control.checkpointSeconds)
            checkpoint();
    }
    m_state.seconds = now();
    if (m_state.finished && c.algorithm != Algorithm::Random && c.algorithm != Algorithm::Ppo) restoreBest();
    checkpoint();
    m_callbacks = nullptr;
    m_control = nullptr;
    return m_state;
}

void SearchEngine::checkpoint()
{
    m_state.rng = rngState(m_rng);
    m_lastCheckpointEvals = m_state.evaluations();
    m_lastCheckpointSeconds = m_state.seconds;
    if (m_callbacks && m_callbacks->onCheckpoint) m_callbacks->onCheckpoint(m_state);
}

void SearchEngine::publish(const SearchEvaluation& e)
{
    if (m_callbacks && m_callbacks->onEvaluation) m_callbacks->onEvaluation(e, status());
}

void SearchEngine::publishAll(size_t from)
{
    // Copies: a callback may not hold references into the history, which grows.
    for (size_t i = from; i < m_state.history.size(); ++i) {
        const SearchEvaluation copy = m_state.history[i];
        publish(copy);
    }
}

std::vector<eval::EvalResult> SearchEngine::evaluate(const std::vector<Candidate>& candidates,
                                                     const EvalRequest& request)
{
    std::vector<Schedule> schedules;
    schedules.reserve(candidates.size());
    for (const auto& c : candidates)
        schedules.push_back(c.schedule);
    auto results = m_evaluator.evaluate(schedules, request);
    results.resize(candidates.size(),
                   eval::failedResult(eval::failure::kError, "the evaluator gave no answer"));
    return results;
}

SearchEvaluation& SearchEngine::record(const Candidate& c, std::string kind, const eval::EvalResult& r,
                                       double t)
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

bool SearchEngine::quickLegal(const Schedule& from, const Schedule& to) const
{
    // Proposals come from the checker's legal edits; the schedule is checked once more so a search can
    // never evaluate an illegal variant, whatever the proposer's composition does. `from` is legal (the
    // start, or an incumbent that passed this check), so the blocks it changed suffice.
    const auto& blockOf = m_checker.analysis().cfg.blockOf;
    CheckOptions quick;
    quick.stopAtFirst = true;
    for (uint32_t p = 0; p < from.order.size(); ++p) {
        const uint32_t i = to.order[p];
        if (i != from.order[p] || !(to.control[i] == from.control[i]))
            if (quick.blocks.empty() || quick.blocks.back() != blockOf[p]) quick.blocks.push_back(blockOf[p]);
    }
    return m_checker.check(to, quick).legal();
}

std::vector<SearchEngine::Candidate> SearchEngine::proposeFrom(int base, const Schedule& from, int minEdits,
                                                               int maxEdits)
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
        if (!quickLegal(from, c.schedule)) {
            ++m_state.refusedByCheck;
            continue;
        }
        out.push_back(std::move(c));
    }
    m_emptyProposals = out.empty() ? m_emptyProposals + 1 : 0;
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
            SearchEvaluation& e = record(c, "list:" + name + shareName, results[0], 0.0);
            if (m_state.config.algorithm == Algorithm::ListSchedule && e.best) e.outcome = Outcome::Accepted;
            const SearchEvaluation copy = e;
            publish(copy);
        } else if (s) {
            ++m_state.refusedByCheck;
        }
    }
    if (!listPhase() && m_state.config.algorithm != Algorithm::ListSchedule) {
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

bool SearchEngine::acceptAnneal(const SpeedupFigures& f, double t)
{
    const bool paired = f.paired != 0.0;
    const double delta = paired ? f.paired - 1.0 : f.speedup - m_state.incumbentSpeedup;
    if (m_state.config.preset == "sip") {
        // SIP as published: Metropolis on the raw difference.
        if (delta >= 0.0) return true;
        const double u = std::uniform_real_distribution<double>(0.0, 1.0)(m_rng);
        return t > 0.0 && u < std::exp(delta / t);
    }
    // The penalty method for uncertain energies (Ceperley & Dewing, J. Chem. Phys. 110, 9812 (1999)):
    // with Δ measured with standard error σ, accepting with min(1, exp(Δ/T − σ²/2T²)) keeps the walk's
    // balance that exact Δ would give. Plain Metropolis on a noisy Δ accepts every lucky draw of a slightly
    // harmful edit: on the H200 it accepted 81-91% of the steps and ended 1-4% below the original
    // (bench/results/search-climb-h200x4-2026-11-26.md). σ comes from the 95% interval of this
    // measurement; an exact figure has none.
    const double low = paired ? f.pairedLow : f.low;
    const double high = paired ? f.pairedHigh : f.high;
    const double sigma = f.exact() ? 0.0 : std::max(0.0, high - low) / (2.0 * 1.96);
    if (t <= 0.0) return delta >= 0.0 && sigma == 0.0;
    const double logP = delta / t - sigma * sigma / (2.0 * t * t);
    if (logP >= 0.0) return true;
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(m_rng);
    return u < std::exp(logP);
}

void SearchEngine::annealStep(bool greedy)
{
    const SearchConfig& c = m_state.config;
    const bool sip = c.preset == "sip";
    if (!greedy && !sip) return pairedAnnealStep();
    const double t = temperature();
    const int maxEdits = greedy || sip ? 1 : c.maxEditsPerProposal;
    auto candidates = proposeFrom(m_state.incumbent, m_incumbentSchedule, 1, maxEdits);
    if (candidates.empty()) return;
    auto results = evaluate(candidates, EvalRequest{1.0 / m_state.incumbentSpeedup, false});
    bool accepted = false;
    for (size_t i = 0; i < candidates.size(); ++i) {
        SearchEvaluation& e = record(candidates[i], "candidate", results[i], t);
        // Only the first acceptance of a batch counts: the others were proposed from the old incumbent.
        if (e.outcome != Outcome::Failed && !accepted) {
            const bool take =
                greedy ? e.figures.clearlyAbove(m_state.incumbentSpeedup) : acceptAnneal(e.figures, t);
            if (take) {
                e.outcome = Outcome::Accepted;
                accepted = true;
                setIncumbent(e.step, e.figures.speedup, candidates[i].schedule);
            }
        }
        const SearchEvaluation copy = e;
        publish(copy);
    }
    if (accepted && m_checker.analysis().listing.instructions.size() < 4000)
        m_legalNow = int64_t(m_proposer->countLegal(m_incumbentSchedule));
    m_stepsSinceRemeasure += int64_t(candidates.size());
    if (c.remeasureEvery > 0 && m_stepsSinceRemeasure >= c.remeasureEvery) remeasureIncumbent();
}

void SearchEngine::pairedAnnealStep()
{
    const SearchConfig& c = m_state.config;
    const double t = temperature();
    auto candidates = proposeFrom(m_state.incumbent, m_incumbentSchedule, 1, c.maxEditsPerProposal);
    if (candidates.empty()) return;
    EvalRequest request;
    request.reference = &m_incumbentSchedule;
    auto results = evaluate(candidates, request);
    const size_t first = m_state.history.size();
    int taken = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
        SearchEvaluation& e = record(candidates[i], "candidate", results[i], t);
        // Only the first acceptance of a batch counts: the others were proposed from the old incumbent.
        if (e.outcome != Outcome::Failed && taken < 0 && acceptAnneal(e.figures, t)) {
            e.outcome = Outcome::Accepted;
            taken = int(i);
        }
    }
    if (taken >= 0) {
        const SearchEvaluation& e = m_state.history[first + size_t(taken)];
        setIncumbent(e.step, e.figures.speedup, candidates[size_t(taken)].schedule);
        if (m_checker.analysis().listing.instructions.size() < 4000)
            m_legalNow = int64_t(m_proposer->countLegal(m_incumbentSchedule));
    }
    publishAll(first);
    m_stepsSinceRemeasure += int64_t(candidates.size());
    // A chained figure that looks like a new best is re-measured against the original at once: only
    // that measurement can make it the best (SpeedupFigures::reportable).
    const bool promising = taken >= 0 && m_evaluator.sourceKind() != "estimate" &&
                           m_state.incumbentSpeedup > m_state.bestSpeedup * (1.0 + m_evaluator.noiseFloor());
    if (promising || (c.remeasureEvery > 0 && m_stepsSinceRemeasure >= c.remeasureEvery))
        remeasureIncumbent();
}

void SearchEngine::remeasureIncumbent()
{
    m_stepsSinceRemeasure = 0;
    if (m_evaluator.sourceKind() == "estimate") return; // deterministic: nothing to learn
    if (budgetSpent()) return;
    Candidate c;
    c.base = m_state.incumbent;
    c.schedule = m_incumbentSchedule;
    auto results = evaluate({c}, EvalRequest{1.0 / m_state.incumbentSpeedup, true});
    SearchEvaluation& e = record(c, "re-measure", results[0], temperature());
    e.outcome = Outcome::Measure;
    if (e.figures.ok) m_state.incumbentSpeedup = e.figures.speedup;
    // The walk (or a climb through false acceptances) fell clearly below its best: back to the best.
    if (e.figures.ok && m_state.best >= 0 && m_state.best != m_state.incumbent &&
        e.figures.high < m_state.bestSpeedup && m_state.config.algorithm == Algorithm::Climb)
        restoreBest();
    const SearchEvaluation copy = e;
    publish(copy);
}

void SearchEngine::randomStep()
{
    auto candidates = proposeFrom(m_state.start, m_startSchedule, 1, m_state.config.randomMaxEdits);
    if (candidates.empty()) return;
    // Only a candidate that beats the best so far is worth fresh confirmation rounds.
    auto results = evaluate(candidates, EvalRequest{1.0 / m_state.bestSpeedup, false});
    for (size_t i = 0; i < candidates.size(); ++i) {
        SearchEvaluation& e = record(candidates[i], "candidate", results[i], 0.0);
        if (e.best) {
            e.outcome = Outcome::Accepted;
            m_state.incumbent = e.step;
            m_state.incumbentSpeedup = e.figures.speedup;
        }
        const SearchEvaluation copy = e;
        publish(copy);
    }
}

} // namespace sassx::search
