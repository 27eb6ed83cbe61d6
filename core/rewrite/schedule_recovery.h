#pragma once
// Which schedule of a kernel a cubin holds: a tuned cubin is a permutation of the original's
// instruction words inside each block, with new control bits. Per-offset figures of a variant (stall
// samples) are mapped back to the original instructions through it, so an instruction keeps its
// figures wherever it moved.
#include "core/analysis/kernel_analysis.h"
#include "core/common/result.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/variant.h"

#include <optional>

namespace sassx {

// Matches every word of `kernel`'s code (control bits masked) to an unused original instruction of
// the same basic block. Nothing when the code is not such a permutation (another compile, another
// kernel). Needs no nvdisasm, which refuses some control-bit combinations the rewriter writes and the
// GPU runs.
std::optional<Schedule> recoverSchedule(const KernelAnalysis& analysis, const Cubin& cubin,
                                        const Kernel& kernel);

// The same, or one sentence naming the first word that is none of the original's instructions of its
// block (and what the original has there), for a user who expected two schedules of one kernel.
Result<Schedule> recoverScheduleExplained(const KernelAnalysis& analysis, const Cubin& cubin,
                                          const Kernel& kernel);

} // namespace sassx
