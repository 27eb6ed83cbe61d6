#include "core/analysis/kernel_analysis.h"

namespace sassx {

std::string wallReason(const Instruction& ins)
{
    if (ins.opaque) return ins.baseOpcode + " is not in sassx's operand tables";
    if (ins.cls == InstrClass::Branch || ins.controlFlow) return ins.baseOpcode + " is control flow";
    if (ins.cls == InstrClass::Barrier)
        return ins.baseOpcode + " is a barrier, fence or synchronisation point";
    if (ins.is(kOrdersAsync)) return ins.baseOpcode + " orders asynchronous work";
    if (ins.cls == InstrClass::Tensor && ins.is(kWarpgroupMma))
        return ins.baseOpcode + " is ordered by warpgroup fences";
    return {};
}

std::shared_ptr<const KernelAnalysis> KernelAnalysis::build(KernelListing listing, LatencyTable latencies)
{
    auto a = std::make_shared<KernelAnalysis>();
    a->listing = std::move(listing);
    a->arch = ArchModel::forSm(a->listing.sm);
    a->latencies = std::move(latencies);
    a->cfg = ControlFlowGraph::build(a->listing);
    a->deps = DependencyGraph::build(a->listing, a->cfg, a->latencies);
    a->liveness = Liveness::compute(a->listing, a->cfg);
    const auto& insts = a->listing.instructions;
    a->facts.resize(insts.size());
    for (uint32_t i = 0; i < insts.size(); ++i) {
        auto& f = a->facts[i];
        f.block = a->cfg.blockOf[i];
        f.cycle = a->deps.cycles()[i];
        f.liveGpr = a->liveness.liveGprCount(a->listing, i);
        f.wallReason = wallReason(insts[i]);
        f.wall = !f.wallReason.empty();
    }
    return a;
}

std::shared_ptr<const KernelAnalysis> KernelAnalysis::build(KernelListing listing)
{
    auto arch = ArchModel::forSm(listing.sm);
    return build(std::move(listing), arch->latencies());
}

} // namespace sassx
