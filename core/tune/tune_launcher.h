#pragma once
// The local launcher of a tune (docs/tune.md): the plan's kernels one after another, or several at once
// (one per GPU of --gpus, each kernel measured on its own GPU; or --jobs threads under the estimate),
// each through tuneKernel. The Slurm launcher is tune_slurm.h.
#include "core/tune/tune_runner.h"

#include <vector>

namespace sassx::tune {

// Where a tune's searches run: in this process (runLocal), or as one Slurm array task per kernel
// (tune_slurm.h).
enum class Launcher
{
    Local,
    Slurm,
};

inline constexpr std::array<EnumName<Launcher>, 2> kLauncherNames{{
    {Launcher::Local, "local"},
    {Launcher::Slurm, "slurm"},
}};

struct TuneLaunch
{
    TuneRunOptions run;          // shared by every kernel; budgetSeconds replaced by `seconds` when given
    std::vector<double> seconds; // per kernel of the plan (--total-time split), empty: run.config's budget
    double totalSeconds = 0.0;   // --total-time as a deadline for `seconds` (tune_deadline.h); 0: none
    std::vector<int> gpus;       // GPU ordinals: that many kernels at once, one GPU each (empty: as run says)
    int jobs = 1;                // kernels at once when no GPU list is given
};

struct TuneOutcome
{
    std::vector<KernelProgress> kernels; // in the plan's order
    int count(KernelState s) const;
};

// Runs the plan's kernels (`only` >= 0: that index alone, as a Slurm array task does). Failures are
// per kernel (state Failed, message the one line); the others go on.
TuneOutcome runLocal(const TunePlan& plan, const TuneLaunch& launch, TuneDb& db, const ProgressFn& progress,
                     int only = -1);

} // namespace sassx::tune
