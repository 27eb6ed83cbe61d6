#include "core/tune/tune_slurm.h"

namespace sassx::tune {

Status runTuneOnSlurm(const TuneSlurmRequest& request)
{
    // To be wired to the Slurm launcher of core/cluster (library sassx_cluster, linked by sassx_tune):
    //   cluster::SlurmOptions o;
    //   o.partition = request.partition; o.gres = request.gres; o.time = request.time;
    //   o.extraArgs = request.extraArgs;
    //   auto r = cluster::runSlurmArray(request.argv, request.count, o, request.logDir, request.stop,
    //                                   [&](const cluster::SlurmArrayResult& a) { /* request.progress(...) */
    //                                   });
    //   if (!r) return r.error();
    //   a task whose exitCode != 0 → makeError("Slurm task I (kernel …) failed: see <logPath>")
    (void)request;
    return makeError("--launcher slurm: not built yet");
}

} // namespace sassx::tune
