#pragma once
#include "core/analysis/kernel_analysis.h"
#include "core/common/result.h"
#include "core/session/input_loader.h"

#include <memory>
#include <string>

// The one kernel a command works on: --kernel K, or the only kernel of the input.
struct SelectedKernel
{
    sassx::LoadedInput input;
    size_t cubinIndex = 0;
    std::string kernel;
    std::shared_ptr<const sassx::KernelAnalysis> analysis;
    const sassx::Cubin& cubin() const { return input.cubins[cubinIndex].cubin; }
};

// A checker that also treats what the cubin writer cannot follow as walls.
#include "core/rewrite/legality.h"
#include "core/rewrite/patch_limits.h"
sassx::LegalityChecker makeChecker(const SelectedKernel& sel, const sassx::PatchOptions& options);

sassx::Result<SelectedKernel> selectKernel(const std::string& path, const std::string& kernel,
                                           const std::string& arch = "sm_90");
