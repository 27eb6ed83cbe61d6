#include "core/tune/tune_launcher.h"

#include "core/tune/tune_deadline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

namespace sassx::tune {

int TuneOutcome::count(KernelState s) const
{
    return int(
        std::count_if(kernels.begin(), kernels.end(), [s](const KernelProgress& k) { return k.state == s; }));
}

TuneOutcome runLocal(const TunePlan& plan, const TuneLaunch& launch, TuneDb& db, const ProgressFn& progress,
                     int only)
{
    TuneOutcome outcome;
    outcome.kernels.resize(plan.kernels.size());
    std::vector<size_t> todo;
    for (size_t i = 0; i < plan.kernels.size(); ++i) {
        outcome.kernels[i].kernel = plan.kernels[i].name;
        if (only < 0 || size_t(only) == i) todo.push_back(i);
    }
    for (const SkippedKernel& s : plan.skipped)
        (void)db.recordSkipped(s.name, s.reason); // for the report only: a tune goes on without it
    std::mutex mutex;                             // guards outcome and serialises progress calls
    auto publish = [&](size_t i, const KernelProgress& p) {
        std::lock_guard lock(mutex);
        outcome.kernels[i] = p;
        if (progress) progress(p);
    };
    for (size_t i : todo)
        publish(i, outcome.kernels[i]); // queued

    const size_t slots =
        std::max<size_t>(1, launch.gpus.empty() ? size_t(std::max(1, launch.jobs)) : launch.gpus.size());
    // A total time is a deadline for a tune of several kernels; a single kernel (a Slurm task) keeps its
    // planned part.
    std::optional<TuneDeadline> deadline;
    if (launch.totalSeconds > 0 && launch.seconds.size() == plan.kernels.size() && todo.size() > 1)
        deadline.emplace(launch.totalSeconds, launch.seconds, slots);
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    std::atomic_size_t next{0};
    auto worker = [&](size_t slot) {
        for (size_t n; (n = next++) < todo.size();) {
            const size_t i = todo[n];
            if (launch.run.stop && launch.run.stop->load()) break; // left queued: the next tune runs it
            TuneRunOptions o = launch.run;
            if (i < launch.seconds.size() && launch.seconds[i] > 0)
                o.config.budgetSeconds = launch.seconds[i];
            if (deadline) {
                std::unique_lock lock(mutex);
                const std::optional<double> budget = deadline->start(i, elapsed());
                const double overhead = deadline->overheadPerKernel();
                lock.unlock();
                // A kernel an earlier tune finished costs nothing: tuneKernel reports it done.
                auto latest =
                    budget ? Result<std::optional<DbRun>>(std::nullopt) : db.latestRun(plan.kernels[i].name);
                const bool done = latest && *latest && (*latest)->status == RunStatus::Finished;
                if (!budget && !done) {
                    KernelProgress p;
                    p.kernel = plan.kernels[i].name;
                    p.outOfTime = true;
                    char why[160];
                    std::snprintf(why, sizeof why,
                                  "not started: the total time (%.0f s) was spent (opening and checking took "
                                  "%.0f s per kernel beyond its search); a later tune runs it",
                                  launch.totalSeconds, overhead);
                    p.message = why;
                    publish(i, p);
                    continue;
                }
                if (budget) o.config.budgetSeconds = *budget;
            }
            if (!launch.gpus.empty()) o.workspace.evaluator.gpus = {launch.gpus[slot]};
            auto r = tuneKernel(plan.kernels[i], plan.sharesNote, o, db,
                                [&](const KernelProgress& p) { publish(i, p); });
            if (deadline) {
                std::lock_guard lock(mutex);
                if (r && r->state == KernelState::Done)
                    deadline->release(i);
                else
                    deadline->finish(i, elapsed(), r ? r->searchSeconds : 0.0);
            }
            if (!r) {
                KernelProgress p;
                p.kernel = plan.kernels[i].name;
                p.state = KernelState::Failed;
                p.message = r.message();
                publish(i, p);
            }
        }
    };
    if (slots == 1 || todo.size() <= 1) {
        worker(0);
    } else {
        std::vector<std::thread> threads;
        for (size_t s = 0; s < std::min(slots, todo.size()); ++s)
            threads.emplace_back(worker, s);
        for (std::thread& t : threads)
            t.join();
    }
    return outcome;
}

} // namespace sassx::tune
