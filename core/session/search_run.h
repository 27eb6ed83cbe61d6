#pragma once
// One search from start to report, as `sassx-cli search` and the GUI's search panel run it: the
// workspace's kernel and checker, the chosen evaluator, the engine, checkpoints into the output
// directory (a killed run resumes from them), then the best variant re-measured on fresh rounds,
// re-verified on fresh inputs, and written out:
//   DIR/best.cubin    the tuned cubin (the original when nothing beat it)
//   DIR/best.json     the best variant's edits (sassx-cli move / the GUI can replay them)
//   DIR/history.csv   one row per evaluation (search_state.h)
//   DIR/report.json   speed-up with interval and noise floor, edits, verification, device, date
//   DIR/diff.html     the original beside the best, moved instructions linked
//   DIR/checkpoint.json  the engine's state (resume with the same directory)
//   DIR/policy.pt     PPO only: the agent after its last update (warm-starts other runs: --policy)
#include "core/search/search_engine.h"
#include "core/session/kernel_evaluator.h"
#include "core/session/search_evaluator.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace sassx {

struct SearchRunOptions
{
    search::SearchConfig config;
    std::string outDir;            // created if missing; checkpoints go there as the run goes
    bool resume = false;           // continue outDir/checkpoint.json instead of starting afresh
    SearchMeasurePlan plan;        // rounds: screening, confirmation, and the final figure of the best
    bool verifyFreshInputs = true; // re-check the best on inputs of another seed (GPU backends)
    search::SearchControl control;
    // For a stall-guided search: samples of the original to weigh proposals with (a stall profile or
    // `sassx-cli stalls --json` output); empty = sample the original now (GPU backends). The profile
    // used is kept as outDir/stalls.json, which a resumed run reuses.
    std::string stallsPath;
    // Sample the best variant's stalls at the end (GPU backends) into outDir/best.stalls.json.
    bool sampleBest = false;
    // PPO: a saved policy (another run's DIR/policy.pt) to start from instead of a fresh network; a
    // resumed run always continues its own DIR/policy.pt.
    std::string policyPath;
};

struct SearchReport
{
    nlohmann::json json;   // report.json
    std::string summary;   // "best 1.0123x [1.0101, 1.0150] (measured on …; noise floor 0.30%) after …"
    bool improved = false; // a variant clearly beat the original
    std::string bestCubinPath, reportPath, diffPath, historyPath;
};

class SearchRun
{
public:
    SearchRun(std::shared_ptr<const KernelWorkspace> kernel, eval::LaunchSpec spec, EvaluatorChoice choice,
              EvaluatorOptions evaluatorOptions);
    ~SearchRun();

    const EvaluatorChoice& choice() const { return m_kernelEvaluator.choice(); }
    const KernelWorkspace& kernel() const { return m_kernelEvaluator.kernel(); }
    // The evaluator the run measures with (prepared against the original): for bench tools that compare
    // other methods in the same harness (bench/search/sip_anneal.cpp).
    KernelEvaluator& kernelEvaluator() { return m_kernelEvaluator; }
    // `config` with --space auto resolved for this run's backend (SearchConfig::resolveSpace): what run()
    // starts a fresh search with.
    search::SearchConfig resolvedConfig(search::SearchConfig config) const;
    // Figures of the original (baseline, noise floor); errors name the mismatching spec parameter.
    Status prepare();

    // Runs (or resumes) the search and writes every output. Stopped runs still write their outputs
    // (from the best so far) and a checkpoint to resume from.
    Result<SearchReport> run(const SearchRunOptions& options, const search::SearchCallbacks& callbacks = {});

private:
    Result<SearchReport> finish(const SearchRunOptions& options, const search::SearchState& state,
                                const std::function<void(const std::string&)>& phase = {},
                                const search::SearchTimeSplit& split = {});
    nlohmann::json verifyOnFreshInputs(const std::vector<uint8_t>& bytes) const;

    Result<std::vector<double>> guideWeights(const SearchRunOptions& options);
    KernelEvaluator m_kernelEvaluator;
    nlohmann::json m_guideInfo; // what the proposals were weighed with (report.json "guide")
    EvaluatorOptions m_evaluatorOptions;
};

// Opens the spec's cubin and kernel through the workspace and chooses the evaluator: what the CLI does.
Result<std::unique_ptr<SearchRun>> openSearchRun(const std::string& specPath,
                                                 const WorkspaceOptions& options);

// Reads DIR/checkpoint.json.
Result<search::SearchState> readSearchCheckpoint(const std::string& dir);

} // namespace sassx
