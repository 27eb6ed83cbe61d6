#pragma once
// The search engine: one loop for every algorithm (search_config.h). It proposes schedules from the
// checker's legal edits of the chosen space (search_space.h), asks a CandidateEvaluator for figures,
// decides, reports each evaluation through a callback and hands checkpoints to a sink. Qt-free and
// synchronous: the CLI runs it on its main thread, the GUI's SearchJob on a worker thread.
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

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <random>

namespace sassx::search {

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

struct SearchCallbacks
{
    std::function<void(const SearchEvaluation&, const SearchStatus&)> onEvaluation;
    std::function<void(const SearchState&)> onCheckpoint;
};

struct SearchControl
{
    const std::atomic_bool* stop = nullptr;  // ends the run after the evaluation in flight (resumable)
    const std::atomic_bool* pause = nullptr; // holds the run between evaluations while set
    int checkpointEvery = 25;                // evaluations between checkpoints
    double checkpointSeconds = 10.0;         // ... or seconds, whichever comes first
};

class SearchEngine
{
public:
    SearchEngine(const LegalityChecker& checker, CandidateEvaluator& evaluator);
    ~SearchEngine();

    // A fresh run of `config` (validated).
    Status start(const SearchConfig& config);
    // Continues a checkpointed run; its configuration wins, except a budget given here (> 0) replaces
    // the saved one so a finished run can be extended.
    Status resume(SearchState state, int64_t budgetEvals = 0, double budgetSeconds = 0.0);

    // Proposal weights per original instruction for a config whose guide is "stalls" (set before
    // start or resume; EditProposer::setGuide).
    void setGuide(std::vector<double> weights) { m_guide = std::move(weights); }
    // The learning agent of a PPO run (agent_loader.h makes one), set before start or resume. A resumed
    // run loads the checkpoint's network into it (SearchState::agentBytes); a fresh run keeps the
    // weights it has (a warm start from --policy, or the seeded initialisation).
    void setAgent(std::unique_ptr<ScheduleAgent> agent);
    ScheduleAgent* agent() const { return m_agent.get(); }

    // Runs until the budget, the algorithm's own end, or a stop; the final state is also checkpointed.
    const SearchState& run(const SearchCallbacks& callbacks = {}, const SearchControl& control = {});
    const SearchState& state() const { return m_state; }
    SearchStatus status() const;

private:
    struct Candidate
    {
        Schedule schedule;
        std::vector<Edit> edits;
        int base = -1;
        std::string kind = "candidate"; // what the history calls it ("probe": climbing's multi-edit draws)
    };
    bool budgetSpent() const;
    double now() const;
    double temperature() const;
    bool listPhase() const;
    void listStep();
    void annealStep(bool greedy);
    void pairedAnnealStep();
    void randomStep();
    void remeasureIncumbent();
    // Climbing (search_engine_climb.cpp).
    void climbStep();
    bool beginSweep();
    std::vector<Candidate> climbCandidates(int batch);
    bool climbProbe(Candidate& c);
    bool climbPhaseOver() const;
    double climbBar() const;
    void restoreClimb();
    double temperatureUnit() const;
    void restoreBest();
    // PPO (search_engine_ppo.cpp).
    Status startAgent(bool resuming);
    void ppoStep();
    struct PpoView
    {
        std::vector<Edit> actions; // the rows of the observation
        Observation observation;
        uint64_t subsetSeed = 0;
    };
    PpoView observeEpisode(const Schedule& s, int step, double speedup, uint64_t subsetSeed) const;
    void endEpisode();
    void updateAgent();
    bool quickLegal(const Schedule& from, const Schedule& to) const;
    std::vector<Candidate> proposeFrom(int base, const Schedule& from, int minEdits, int maxEdits);
    std::vector<eval::EvalResult> evaluate(const std::vector<Candidate>& candidates,
                                           const EvalRequest& request);
    // A paired result (against the incumbent) is chained to the original through the incumbent's figure.
    SearchEvaluation& record(const Candidate& c, std::string kind, const eval::EvalResult& r,
                             double temperature);
    void publishAll(size_t from);
    bool acceptAnneal(const SpeedupFigures& f, double t);
    void setIncumbent(int index, double speedup, const Schedule& schedule);
    Schedule scheduleOf(int index) const;
    void checkpoint();
    void publish(const SearchEvaluation& e);

    const LegalityChecker& m_checker;
    CandidateEvaluator& m_evaluator;
    std::unique_ptr<EditProposer> m_proposer;
    std::vector<double> m_guide;
    std::unique_ptr<ScheduleAgent> m_agent;
    std::unique_ptr<FeatureExtractor> m_features;
    Schedule m_episodeSchedule;
    SearchState m_state;
    std::mt19937_64 m_rng;
    Schedule m_incumbentSchedule, m_startSchedule;
    std::chrono::steady_clock::time_point m_runStart;
    double m_secondsAtStart = 0.0;
    int64_t m_evaluationsAtStart = 0;
    int64_t m_stepsSinceRemeasure = 0;
    int m_emptyProposals = 0;
    int64_t m_legalNow = -1;
    const SearchCallbacks* m_callbacks = nullptr;
    const SearchControl* m_control = nullptr;
    std::map<std::string, std::vector<Edit>> m_listEdits; // heuristic → its whole edit sequence
    std::vector<Edit> m_sweep; // climbing: every legal single edit of the incumbent, shuffled
    bool m_sweepBuilt = false;
    std::vector<size_t> m_probeControl; // indices of m_sweep's control edits (probes draw from them)
    int64_t m_lastCheckpointEvals = 0;
    double m_lastCheckpointSeconds = 0.0;
};

} // namespace sassx::search
