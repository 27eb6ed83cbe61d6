#pragma once
// The search engine: one loop for every algorithm (search_config.h), each a SearchStrategy
// (search_strategy.h) that takes steps through the engine's narrow context (strategy_context.h). The engine
// owns the budget, the checkpoints, the list-schedule seeding phase, the history and the one rule for a best;
// it proposes schedules from the checker's legal edits of the chosen space (search_space.h), asks a
// CandidateEvaluator for figures, reports each evaluation through a callback and hands checkpoints to a
// sink. Qt-free and synchronous: the CLI runs it on its main thread, the GUI's SearchJob on a worker
// thread.
//
// Honest acceptance (docs/search.md): a measured candidate that seems to beat the incumbent is confirmed on
// fresh rounds by the evaluator before it can count (EvalRequest::incumbentRatio), a new best must be
// clearly faster than the original (whole interval above 1, gain above the noise floor), and the
// incumbent is re-measured periodically so one lucky figure cannot anchor the walk. Under a
// deterministic backend (the estimate) a run is reproducible from its seed, and a run resumed from a
// checkpoint continues exactly as if it had never stopped.
#include "core/search/agent.h"
#include "core/search/candidate_evaluator.h"
#include "core/search/schedule_features.h"
#include "core/search/search_state.h"
#include "core/search/strategy_context.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <random>

namespace sassx::search {

class SearchStrategy;

struct SearchStatus
{
    int64_t evaluations = 0;
    double seconds = 0.0;
    double evalsPerSecond = 0.0; // this run's (since start or resume)
    double temperature = 0.0;    // annealing only
    double incumbentSpeedup = 1.0;
    double bestSpeedup = 1.0;
    int best = -1;
    int64_t legalMoves = -1; // legal single edits of the space from the incumbent (-1: not counted yet)
    std::string phase;       // "list schedule", "anneal", …
};

// Where a run's wall time went (this process's part of the run, since start or resume): for a pool of
// GPUs that does not scale, whether the GPUs were busy or waited for the search (docs/search.md, "Where
// the time goes"). Not in the checkpoint.
struct SearchTimeSplit
{
    double runSeconds = 0.0;        // the run's wall time in this process
    double evaluateSeconds = 0.0;   // inside the evaluator: preparing, measuring, waiting for a batch's last
    double checkpointSeconds = 0.0; // writing checkpoints
    double busySeconds = 0.0;       // Σ of each measurement's time as the pool saw it (over all GPUs)
    std::map<std::string, double> phaseSeconds; // Σ of the worker's own phases ("load", "check", "timing")
    // Σ of a strategy's own phases outside the evaluator (PPO: "observe", "act", "apply", "learn",
    // "update"): where the search's side of the run goes.
    std::map<std::string, double> strategySeconds;
    int64_t batches = 0;    // calls of the evaluator
    int64_t candidates = 0; // schedules it was handed
};
nlohmann::json toJson(const SearchTimeSplit& t, int parallelism);

struct SearchCallbacks
{
    std::function<void(const SearchEvaluation&, const SearchStatus&)> onEvaluation;
    std::function<void(const SearchState&)> onCheckpoint;
    // After the search, what the run is doing with its best (SearchRun: "re-measuring the best",
    // "verifying on fresh inputs"): for kernels with large arguments this takes minutes, and a progress
    // display stuck at 100% would not say why.
    std::function<void(const std::string&)> onPhase;
};

struct SearchControl
{
    const std::atomic_bool* stop = nullptr;  // ends the run after the evaluation in flight (resumable)
    const std::atomic_bool* pause = nullptr; // holds the run between evaluations while set
    int checkpointEvery = 25;                // evaluations between checkpoints
    double checkpointSeconds = 10.0;         // ... or seconds, whichever comes first
    // ... but at least this share of the evaluations made: a checkpoint writes the whole history.
    double checkpointShare = 0.05;
};

// The engine is the strategies' context (strategy_context.h) privately: a strategy gets it as a
// StrategyContext and reaches nothing else of it.
class SearchEngine : private StrategyContext
{
public:
    SearchEngine(const LegalityChecker& checker, CandidateEvaluator& evaluator);
    ~SearchEngine();

    // A fresh run of `config` (validated).
    Status start(const SearchConfig& config);
    // Continues a checkpointed run; its configuration wins, except a budget given here (> 0) replaces
    // the saved one so a finished run can be extended.
    Status resume(SearchState state, int64_t budgetEvals = 0, double budgetSeconds = 0.0);

    // Proposal weights per original instruction for a config guided by ProposalGuide::Stalls (set before
    // start or resume; EditProposer::setGuide).
    void setGuide(std::vector<double> weights) { m_guide = std::move(weights); }
    // The learning agent of a PPO run (agent_loader.h makes one), set before start or resume. A resumed
    // run loads the checkpoint's network into it (SearchState::agentBytes); a fresh run keeps the
    // weights it has (a warm start from --policy, or the seeded initialisation).
    void setAgent(std::unique_ptr<ScheduleAgent> agent);
    ScheduleAgent* agent() const override { return m_agent.get(); }

    // Runs until the budget, the algorithm's own end, or a stop; the final state is also checkpointed.
    const SearchState& run(const SearchCallbacks& callbacks = {}, const SearchControl& control = {});
    const SearchState& state() const override { return m_state; }
    SearchStatus status() const;
    const SearchTimeSplit& timeSplit() const { return m_timeSplit; }

private:
    // --- StrategyContext ------------------------------------------------------------------------------
    const LegalityChecker& checker() const override { return m_checker; }
    const EditProposer& proposer() const override { return *m_proposer; }
    const Schedule& incumbentSchedule() const override { return m_incumbentSchedule; }
    const Schedule& startSchedule() const override { return m_startSchedule; }
    Schedule scheduleOf(int index) const override;
    double now() const override;
    double temperature() const override;
    double temperatureUnit() const override;
    int batchSize() const override;
    double noiseFloor() const override { return m_evaluator.noiseFloor(); }
    int parallelism() const override { return m_evaluator.parallelism(); }
    bool measured() const override;
    std::mt19937_64& rng() override { return m_rng; }
    std::vector<Candidate> proposeFrom(int base, const Schedule& from, int minEdits, int maxEdits) override;
    bool admit(const Schedule& from, const Schedule& to) override;
    std::vector<eval::EvalResult> evaluate(const std::vector<Candidate>& candidates,
                                           const EvalRequest& request) override;
    const SearchEvaluation& record(const Candidate& c, std::string kind, const eval::EvalResult& r,
                                   double temperature) override;
    void accept(int step) override;
    void publishFrom(size_t from) override;
    void publish(int step) override;
    void setIncumbent(int index, double speedup, const Schedule& schedule) override;
    void restoreBest() override;
    void remeasureIncumbent() override;
    int64_t countTowardsRemeasure(int64_t evaluations) override;
    void finish(StopReason why) override;
    void spaceExhausted() override { m_exhausted = true; }
    void noteProposals(bool found) override;
    void countSteps(int64_t proposals) override { m_state.steps += proposals; }
    void setLegalMoves(int64_t count) override { m_legalNow = count; }
    void addStrategySeconds(const std::string& phase, double seconds) override;
    ClimbState& climbState() override;
    std::optional<PpoState>& ppoState() override { return m_state.agent; }
    void saveAgent() override;

    // --- The engine's own -----------------------------------------------------------------------------
    StrategyContext& context() { return *this; }
    const StrategyContext& context() const { return *this; }
    bool budgetSpent() const;
    // `to` differs from the legal `from` in a few blocks: checks those (a search never evaluates an
    // illegal variant, whatever a proposer's composition does).
    bool quickLegal(const Schedule& from, const Schedule& to) const;
    void publishEvaluation(const SearchEvaluation& e);
    SearchEvaluation& recordInHistory(const Candidate& c, std::string kind, const eval::EvalResult& r,
                                      double temperature);
    bool listPhase() const;
    void listStep();
    bool checkpointDue(const SearchControl& control) const;
    void checkpoint();

    const LegalityChecker& m_checker;
    CandidateEvaluator& m_evaluator;
    std::unique_ptr<EditProposer> m_proposer;
    std::vector<double> m_guide;
    std::unique_ptr<ScheduleAgent> m_agent;
    std::unique_ptr<SearchStrategy> m_strategy;
    SearchState m_state;
    std::mt19937_64 m_rng;
    Schedule m_incumbentSchedule, m_startSchedule;
    std::chrono::steady_clock::time_point m_runStart;
    double m_secondsAtStart = 0.0;
    int64_t m_evaluationsAtStart = 0;
    int64_t m_stepsSinceRemeasure = 0;
    int m_emptyProposals = 0; // consecutive steps that found no legal edit
    bool m_exhausted = false; // a strategy found nothing legal from the incumbent
    int64_t m_legalNow = -1;
    const SearchCallbacks* m_callbacks = nullptr;
    const SearchControl* m_control = nullptr;
    std::map<std::string, std::vector<Edit>> m_listEdits; // heuristic → its whole edit sequence
    SearchTimeSplit m_timeSplit;
    int64_t m_lastCheckpointEvals = 0;
    double m_lastCheckpointSeconds = 0.0;
};

} // namespace sassx::search
