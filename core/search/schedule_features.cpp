#include "core/search/schedule_features.h"

#include "core/rewrite/block_positions.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sassx::search {

namespace {

int classGroup(InstrClass c)
{
    switch (c) {
    case InstrClass::LoadGlobal:
        return 0;
    case InstrClass::StoreGlobal:
        return 1;
    case InstrClass::LoadShared:
    case InstrClass::StoreShared:
        return 2;
    case InstrClass::AsyncCopy:
    case InstrClass::Tensor:
        return 3;
    case InstrClass::Alu:
    case InstrClass::Fma:
    case InstrClass::Uniform:
        return 4;
    case InstrClass::Mufu:
    case InstrClass::Conversion:
    case InstrClass::LoadLocal:
    case InstrClass::StoreLocal:
    case InstrClass::Atomic:
    case InstrClass::LoadConst:
    case InstrClass::Texture:
    case InstrClass::SpecialReg:
    case InstrClass::Shuffle:
        return 5;
    default:
        return 6;
    }
}

float capped(int positions)
{
    return std::min(1.0f, float(positions) / 16.0f);
}

} // namespace

FeatureExtractor::FeatureExtractor(const KernelAnalysis& analysis) : m_analysis(analysis) {}

std::vector<float> FeatureExtractor::instructionRows(const Schedule& schedule) const
{
    const auto& a = m_analysis;
    const size_t n = schedule.order.size();
    const auto pos = schedule.positionOf();
    std::vector<float> rows(n * kInstructionDim, 0.0f);
    for (Position p : schedule.positions()) {
        const InstrId i = schedule.order[p];
        const Instruction& ins = a.listing.instructions[i.value()];
        const Control& c = schedule.control[i];
        float* r = rows.data() + size_t(p.value()) * kInstructionDim;
        r[classGroup(ins.cls)] = 1.0f;
        r[7] = float(c.stall) / 15.0f;
        r[8] = float(c.yield);
        r[9] = c.wbar != kNoBarrier ? 1.0f : 0.0f;
        r[10] = c.rbar != kNoBarrier ? 1.0f : 0.0f;
        r[11] = float(std::popcount(unsigned(c.wait))) / 6.0f;
        r[12] = c.reuse ? 1.0f : 0.0f;
        const int block = a.cfg.blockOf[i.value()];
        int producer = 16, consumer = 16;
        for (uint32_t e : a.deps.incoming(i.value())) {
            const InstrId j(a.deps.edges()[e].from);
            if (a.cfg.blockOf[j.value()] == block && pos[j] < p)
                producer = std::min(producer, int(p - pos[j]));
        }
        for (uint32_t e : a.deps.outgoing(i.value())) {
            const InstrId j(a.deps.edges()[e].to);
            if (a.cfg.blockOf[j.value()] == block && pos[j] > p)
                consumer = std::min(consumer, int(pos[j] - p));
        }
        r[13] = capped(producer);
        r[14] = capped(consumer);
        // Liveness of the original order: recomputing it per step would cost a pass per observation,
        // and moves inside a block change it little.
        r[15] = float(std::min(a.facts[i.value()].liveGpr, 255)) / 255.0f;
        const auto& bb = a.cfg.blocks[size_t(block)];
        const uint32_t size = bb.end - bb.first;
        r[16] = size > 1 ? float(offsetInBlock(bb, p)) / float(size - 1) : 0.0f;
        // An instruction's original position is its InstrId: the displacement compares the two.
        r[17] = std::clamp((float(p.value()) - float(i.value())) / 16.0f, -1.0f, 1.0f);
    }
    return rows;
}

uint64_t scheduleHash(const Schedule& schedule)
{
    // FNV-1a over the order and the encoded control fields, then SplitMix64's finaliser so that
    // schedules one edit apart give unrelated seeds.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) {
        for (int b = 0; b < 8; ++b) {
            h ^= (v >> (8 * b)) & 0xFF;
            h *= 1099511628211ull;
        }
    };
    for (InstrId i : schedule.order)
        mix(i.value());
    for (const Control& c : schedule.control)
        mix(c.encode(0));
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

Observation FeatureExtractor::observe(const Schedule& schedule, const std::vector<Edit>& actions,
                                      double progress, double speedup) const
{
    Observation o;
    o.actionDim = kActionDim;
    o.stateDim = kStateDim;
    const auto rows = instructionRows(schedule);
    const size_t n = schedule.order.size(), blocks = m_analysis.cfg.blocks.size();
    o.actions.assign(actions.size() * kActionDim, 0.0f);
    for (size_t k = 0; k < actions.size(); ++k) {
        const Edit& e = actions[k];
        float* r = o.actions.data() + k * kActionDim;
        const Position at = e.kind == Edit::Kind::Move ? e.from : e.at;
        std::copy_n(rows.data() + size_t(at.value()) * kInstructionDim, kInstructionDim, r);
        float* tail = r + 2 * kInstructionDim;
        if (e.kind == Edit::Kind::Move) {
            std::copy_n(rows.data() + size_t(e.to.value()) * kInstructionDim, kInstructionDim,
                        r + kInstructionDim);
            const float d = float(e.to - e.from) / 32.0f;
            tail[0] = std::clamp(d, -1.0f, 1.0f);
            tail[1] = std::min(std::abs(d), 1.0f);
            tail[2] = 1.0f;
        } else if (e.stall) {
            tail[5] = 1.0f;
            tail[6] = float(*e.stall) / 15.0f;
        } else if (e.yield) {
            tail[3] = 1.0f;
            tail[6] = float(*e.yield);
            // The flip to Y0 that clears the reuse flags too is another edit than the one keeping them.
            if (e.reuse) tail[4] = 1.0f;
        } else if (e.reuse) {
            tail[4] = 1.0f;
            tail[6] = *e.reuse ? 1.0f : 0.0f;
        }
        float* identity = tail + 7;
        const InstrId i = schedule.order[at];
        identity[int(m_analysis.listing.instructions[i.value()].cls)] = 1.0f;
        identity[kClassCount] =
            blocks > 1 ? float(m_analysis.cfg.blockOf[i.value()]) / float(blocks - 1) : 0.0f;
        identity[kClassCount + 1] = n > 1 ? float(at.value()) / float(n - 1) : 0.0f;
    }
    o.state.assign(kStateDim, 0.0f);
    size_t displaced = 0;
    // Displaced: not at its original position, which is its InstrId.
    for (Position p : schedule.positions())
        displaced += schedule.order[p].value() != p.value();
    o.state[0] = float(std::clamp(progress, 0.0, 1.0));
    o.state[1] = float(std::clamp((speedup - 1.0) * 10.0, -1.0, 1.0));
    o.state[2] = n ? float(displaced) / float(n) : 0.0f;
    o.state[3] = float(std::log1p(double(actions.size())) / 10.0);
    for (size_t p = 0; p < n; ++p)
        for (int d = 0; d < kInstructionDim; ++d)
            o.state[size_t(4 + d)] += rows[p * kInstructionDim + size_t(d)] / float(n);
    return o;
}

} // namespace sassx::search
