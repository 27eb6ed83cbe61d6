#include "core/tune/tune_launcher.h"

#include <algorithm>
#include <atomic>
#include <mutex>
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
    std::atomic_size_t next{0};
    auto worker = [&](size_t slot) {
        for (size_t n; (n = next++) < todo.size();) {
            const size_t i = todo[n];
            if (launch.run.stop && launch.run.stop->load()) break; // left queued: the next tune runs it
            TuneRunOptions o = launch.run;
            if (i < launch.seconds.size() && launch.seconds[i] > 0)
                o.config.budgetSeconds = launch.seconds[i];
            if (!launch.gpus.empty()) o.workspace.evaluator.gpus = {launch.gpus[slot]};
            auto r = tuneKernel(plan.kernels[i], plan.sharesNote, o, db,
                                [&](const KernelProgress& p) { publish(i, p); });
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
