#include "core/session/kernel_edits.h"

namespace sassx {

std::vector<ControlEditOption> legalControlEdits(const KernelWorkspace& kernel, const Schedule& current,
                                                 ControlSpace space)
{
    const LegalityChecker& checker = kernel.checker();
    std::vector<ControlEditOption> out;
    if (!kernel.editRefusal().empty()) return out; // the architecture's refusal (arch_model.h)
    for (const Edit& e : checker.legalControlEdits(current, space)) {
        // Reuse flags kept under Y0: the evidence row that allows it (nvdisasm prints no marks there).
        const InstrId original = current.order[e.at];
        Control c = current.control[original];
        if (e.yield) c.yield = *e.yield;
        if (e.reuse) c.reuse = *e.reuse;
        out.push_back({e, checker.controlRules().keptReuseNote(original, c)});
    }
    return out;
}

PatternEdits interleaveEdits(const KernelWorkspace& kernel, const Schedule& current, InterleaveReuse reuse,
                             Position first, Position end)
{
    if (!kernel.editRefusal().empty()) return PatternEdits{{}, {kernel.editRefusal()}, 0};
    return ffmaInterleaveEdits(kernel.checker(), current, first, end, reuse);
}

} // namespace sassx
