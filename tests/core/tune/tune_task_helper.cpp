// What a Slurm array task of a tune does (sassx-cli tune DIR --task-index I --task-db), without the CLI
// above it: the plan of DIR, kernel I searched with the estimate backend, recorded only into the task's
// own database under RUNS_DIR (core/tune/tune_task.h). test_tune_merge runs it as a child process, in a
// mount namespace where the submitter's database cannot be seen. Exit 1 with one line when it fails.
#include "core/tune/tune_launcher.h"
#include "core/tune/tune_task.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace sassx;
using namespace sassx::tune;

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: tune_task_helper DIR RUNS_DIR INDEX\n");
        return 2;
    }
    const std::string dir = argv[1], runsDir = argv[2];
    const int index = std::atoi(argv[3]);
    auto plan = discoverPlan(dir);
    if (!plan) {
        std::fprintf(stderr, "task: %s\n", plan.message().c_str());
        return 1;
    }
    if (index < 0 || size_t(index) >= plan->kernels.size()) {
        std::fprintf(stderr, "task: index %d is outside the plan\n", index);
        return 1;
    }
    auto db = openTaskDb(runsDir, plan->kernels[size_t(index)].name);
    if (!db) {
        std::fprintf(stderr, "task: %s\n", db.message().c_str());
        return 1;
    }
    TuneLaunch launch;
    launch.run.config.budgetEvals = 6;
    launch.run.config.seed = 7;
    launch.run.runsDir = runsDir;
    launch.run.workspace.evaluator.backend = eval::Backend::Estimate;
    const TuneOutcome outcome = runLocal(*plan, launch, **db, {}, index);
    const KernelProgress& k = outcome.kernels[size_t(index)];
    std::printf("task %d: %s %s (%s)\n", index, k.kernel.c_str(), stateName(k.state).c_str(),
                (*db)->path().c_str());
    if (k.state == KernelState::Finished || k.state == KernelState::Done) return 0;
    std::fprintf(stderr, "task: %s: %s\n", k.kernel.c_str(), k.message.c_str());
    return 1;
}
