#include "kernel_selection.h"

sassx::Result<SelectedKernel> selectKernel(const std::string& path, const std::string& kernel,
                                           const std::string& arch)
{
    using namespace sassx;
    LoadOptions opts;
    opts.arch = arch;
    auto in = loadInput(path, opts);
    if (!in) return in.error();
    SelectedKernel sel;
    sel.input = std::move(*in);
    std::vector<std::pair<size_t, std::string>> all;
    for (size_t c = 0; c < sel.input.cubins.size(); ++c)
        for (const auto& k : sel.input.cubins[c].cubin.kernels())
            all.emplace_back(c, k.name);
    if (all.empty()) return makeError(path + ": no kernels");
    if (kernel.empty()) {
        if (all.size() > 1) {
            std::string names;
            for (const auto& [c, n] : all)
                names += (names.empty() ? "" : ", ") + n;
            return makeError(path + " has " + std::to_string(all.size()) +
                             " kernels; pick one with --kernel (" + names + ")");
        }
        sel.cubinIndex = all[0].first;
        sel.kernel = all[0].second;
    } else {
        bool found = false;
        for (const auto& [c, n] : all)
            if (n == kernel) {
                sel.cubinIndex = c;
                sel.kernel = n;
                found = true;
                break;
            }
        if (!found) return makeError("no kernel named '" + kernel + "' in " + path);
    }
    auto listing = disassembleKernel(sel.cubin(), sel.kernel);
    if (!listing) return listing.error();
    sel.analysis = KernelAnalysis::build(std::move(*listing));
    return sel;
}

sassx::LegalityChecker makeChecker(const SelectedKernel& sel, const sassx::PatchOptions& options)
{
    sassx::LegalityChecker checker(sel.analysis);
    std::vector<std::pair<uint32_t, std::string>> walls;
    if (const auto* kernel = sel.cubin().findKernel(sel.kernel))
        for (const auto& u : sassx::unpatchableInstructionsWithReasons(sel.cubin(), *kernel, options))
            walls.emplace_back(u.index, u.reason);
    checker.addWalls(walls);
    return checker;
}
