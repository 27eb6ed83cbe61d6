#pragma once
// Stall samples of a variant mapped onto the kernel: per original instruction (so an instruction keeps
// its figures wherever it moved), per basic block and for the whole kernel. The sample profile holds
// offsets in the variant's code; the variant's schedule turns offsets into original instructions
// (schedule_recovery.h recovers it from a tuned cubin).
#include "core/analysis/kernel_analysis.h"
#include "core/common/result.h"
#include "core/eval/stall_profile.h"
#include "core/rewrite/variant.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sassx {

struct KernelStalls
{
    IndexVector<InstrId, eval::InstructionStalls> byOriginal; // per original instruction
    std::vector<uint64_t> byBlock;                            // samples per basic block
    uint64_t samples = 0;                                     // all samples on the kernel's instructions
    std::vector<std::pair<std::string, uint64_t>> byWord;     // whole kernel, largest first

    double share(InstrId original) const
    {
        return samples && original < byOriginal.endIndex()
                   ? double(byOriginal[original].samples) / double(samples)
                   : 0.0;
    }
};

// A stall profile read from a file: `sassx-cli stalls --json` output (the profile under "profile") or a
// bare profile, as the worker writes it. An error names the file.
Result<eval::StallProfile> readStallProfile(const std::string& path);

// Fails when the profile has samples past the end of the kernel (a profile of other code).
Result<KernelStalls> mapStalls(const eval::StallProfile& profile, const KernelAnalysis& analysis,
                               const Schedule& variant);

// The per-instruction part as JSON: every instruction with samples, by position in the variant.
nlohmann::json kernelStallsJson(const KernelStalls& stalls, const KernelAnalysis& analysis,
                                const Schedule& variant);

// Proposal weights for a stall-guided search (SearchConfig::guide "stalls"), one per original
// instruction: the samples of waits a schedule can change (everything but "issuing" and "not
// selected") within `window` instructions of it in its block, plus a floor of a tenth of the mean, so
// that every instruction stays reachable and the walk can still go anywhere.
std::vector<double> stallGuideWeights(const KernelStalls& stalls, const KernelAnalysis& analysis,
                                      int window = 8);

} // namespace sassx
