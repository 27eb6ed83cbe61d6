#pragma once
// A CandidateEvaluator over a simulated GPU, for testing searches against noise on the CPU. The test
// plants each schedule's true time (a function of the schedule); every timed round adds independent noise
// to both kernels of the pair, and every freshly loaded instance a placement offset that lasts as long as
// it is loaded, as on the H100/H200 (bench/results/eval-h100-2026-11-22-cupti.md). Requests are timed as
// the worker times them: the same race (core/eval/race.h), the same screen-then-fresh-confirmation plan
// against the original, the noise floor from simulated twins the way load_baseline measures it.
// A paired bias (setPairedBias) plants luck: a factor on a schedule's time in paired rounds only (races
// against an incumbent), which measurements against the original do not share, as a placement that
// favoured one pair would.
#include "core/analysis/kernel_analysis.h"
#include "core/eval/race.h"
#include "core/search/candidate_evaluator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

class NoisyEvaluator : public sassx::search::CandidateEvaluator
{
public:
    using TrueTime = std::function<double(const sassx::Schedule&)>;

    NoisyEvaluator(const sassx::KernelAnalysis& analysis, TrueTime truth, uint64_t seed = 7,
                   double roundSigma = 0.004, double placementSigma = 0.0015)
        : m_original(sassx::Schedule::identity(analysis)), m_truth(std::move(truth)), m_rng(seed),
          m_round(0.0, roundSigma), m_placement(0.0, placementSigma)
    {
        // The floor as load_baseline measures it: one long twin run, then 16 twins screened like candidates.
        const double t = m_truth(m_original);
        std::vector<double> deviations;
        double longTwin = 0.0;
        {
            std::vector<double> a, b;
            timeRounds(t, t, 30, a, b);
            longTwin = sassx::eval::noiseFloor(sassx::eval::ratioInterval(a, b));
        }
        for (int i = 0; i < 16; ++i) {
            std::vector<double> a, b;
            m_candPlacement = 1.0 + m_placement(m_rng);
            timeRounds(t, t, 10, a, b);
            deviations.push_back(std::fabs(sassx::eval::ratioInterval(a, b).median - 1.0));
        }
        const double sigma = 1.4826 * sassx::eval::median(deviations);
        m_floor = std::max({longTwin, 3.0 * sigma, *std::max_element(deviations.begin(), deviations.end())});
    }

    std::vector<sassx::eval::EvalResult> evaluate(const std::vector<sassx::Schedule>& schedules,
                                                  const sassx::search::EvalRequest& request) override
    {
        std::vector<sassx::eval::EvalResult> out;
        m_largestBatch = std::max(m_largestBatch, int(schedules.size()));
        for (const auto& s : schedules) {
            ++m_evaluations;
            sassx::eval::EvalResult r;
            r.correct = true;
            r.source = {"simulated GPU", sassx::eval::FigureKind::Measured};
            r.timing = time(s, request);
            out.push_back(std::move(r));
        }
        return out;
    }
    int parallelism() const override { return m_parallelism; }
    double noiseFloor() const override { return m_floor; }
    sassx::eval::FigureKind sourceKind() const override { return sassx::eval::FigureKind::Measured; }

    void setParallelism(int n) { m_parallelism = n; }
    void setPairedBias(TrueTime bias) { m_pairedBias = std::move(bias); }
    // Clock drift: every kernel runs slower by `perRound` per timed round so far (a card warming up
    // over a run), on both kernels of a pair alike.
    void setDrift(double perRound) { m_drift = perRound; }
    int64_t rounds() const { return m_rounds; }
    int64_t evaluations() const { return m_evaluations; }
    int largestBatch() const { return m_largestBatch; }

private:
    sassx::eval::TimingFigures time(const sassx::Schedule& s, const sassx::search::EvalRequest& request)
    {
        double tc = m_truth(s);
        double tr = m_truth(request.reference ? *request.reference : m_original);
        if (request.reference && m_pairedBias) {
            tc *= m_pairedBias(s);
            tr *= m_pairedBias(*request.reference);
        }
        sassx::eval::TimingFigures t;
        t.noiseFloor = m_floor;
        t.paired = request.reference != nullptr;
        m_candPlacement = 1.0 + m_placement(m_rng);
        m_refPlacement = 1.0;
        std::vector<double> a, b;
        if (request.raceSpeedup > 1.0) {
            sassx::eval::RacePlan plan;
            plan.bar = 1.0 / request.raceSpeedup;
            auto measure = [&](int n, bool fresh, std::vector<double>& ra, std::vector<double>& rb) {
                if (fresh) {
                    m_candPlacement = 1.0 + m_placement(m_rng);
                    if (request.reference) m_refPlacement = 1.0 + m_placement(m_rng);
                }
                timeRounds(tr, tc, n, ra, rb);
                return std::optional<std::string>();
            };
            const sassx::eval::RaceRun run = sassx::eval::runRace(plan, measure);
            t.ratio = run.result.ratio;
            t.confirmed = run.result.confirmed;
            t.screenRounds = run.result.screenRounds;
            t.race = sassx::eval::raceOutcomeName(run.result.outcome);
            return t;
        }
        const int screen = request.full ? 0 : 10;
        if (screen > 0) {
            timeRounds(tr, tc, screen, a, b);
            t.ratio = sassx::eval::ratioInterval(a, b);
            t.screenRounds = screen;
        }
        const bool confirm = !request.reference && (request.full || t.ratio.median < request.incumbentRatio);
        if (confirm) {
            std::vector<double> fa, fb;
            const int rounds = request.full ? 100 : 50;
            for (int done = 0; done < rounds; done += 10) {
                m_candPlacement = 1.0 + m_placement(m_rng);
                timeRounds(tr, tc, 10, fa, fb);
            }
            t.ratio = sassx::eval::ratioInterval(fa, fb);
            t.confirmed = true;
        }
        return t;
    }

    void timeRounds(double tr, double tc, int n, std::vector<double>& a, std::vector<double>& b)
    {
        for (int i = 0; i < n; ++i) {
            const double clock = 1.0 + m_drift * double(m_rounds + i);
            a.push_back(tr * clock * m_refPlacement * (1.0 + m_round(m_rng)));
            b.push_back(tc * clock * m_candPlacement * (1.0 + m_round(m_rng)));
        }
        m_rounds += n;
    }

    sassx::Schedule m_original;
    TrueTime m_truth;
    TrueTime m_pairedBias;
    std::mt19937_64 m_rng;
    std::normal_distribution<double> m_round, m_placement;
    double m_candPlacement = 1.0, m_refPlacement = 1.0;
    double m_floor = 0.0;
    double m_drift = 0.0;
    int m_parallelism = 1;
    int m_largestBatch = 0;
    int64_t m_rounds = 0, m_evaluations = 0;
};
