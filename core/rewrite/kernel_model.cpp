#include "core/rewrite/kernel_model.h"

#include "core/rewrite/schedule_predicates.h"

namespace sassx {

KernelModel::KernelModel(std::shared_ptr<const KernelAnalysis> analysis)
    : m_analysis(std::move(analysis)), m_controlRules(std::make_shared<ControlRules>(*m_analysis))
{
    // Closest issue distance ptxas left between two same-class memory instructions, per class.
    const auto& a = *m_analysis;
    for (const auto& b : a.cfg.blocks) {
        std::map<std::string, int> last;
        for (uint32_t i = b.first; i < b.end; ++i) {
            auto cls = spacingClass(a.listing.instructions[i]);
            if (cls.empty()) continue;
            int c = a.facts[i].cycle;
            if (auto it = last.find(cls); it != last.end()) {
                int d = c - it->second;
                auto m = m_spacing.find(cls);
                if (m == m_spacing.end() || d < m->second) m_spacing[cls] = d;
            }
            last[cls] = c;
        }
    }
    computeCrossBlockDistances();
}

std::shared_ptr<const KernelModel>
KernelModel::withWalls(const std::vector<std::pair<InstrId, std::string>>& walls) const
{
    auto model = std::make_shared<KernelModel>(*this);
    model->m_extraWalls.resize(m_analysis->listing.instructions.size());
    for (const auto& [i, why] : walls)
        if (i < model->m_extraWalls.endIndex()) model->m_extraWalls[i] = why;
    return model;
}

bool KernelModel::isWall(InstrId i) const
{
    return m_analysis->facts[i.value()].wall || (i < m_extraWalls.endIndex() && !m_extraWalls[i].empty());
}

std::string KernelModel::wallReasonOf(InstrId i) const
{
    if (m_analysis->facts[i.value()].wall) return m_analysis->facts[i.value()].wallReason;
    return i < m_extraWalls.endIndex() ? m_extraWalls[i] : std::string();
}

std::optional<uint8_t> KernelModel::stallFloor(const Schedule& s, Position p) const
{
    const auto& a = *m_analysis;
    const InstrId i = s.order[p];
    const Control& c = s.control[i];
    if (isFixed(i)) return std::nullopt;
    if (!issueGapIgnoresYield(c.stall)) return std::nullopt; // 0 and 12-15: their gaps follow the yield bit
    // Blocks never change membership, so the block at a position is the original block there.
    const auto& blk = a.cfg.blocks[a.cfg.blockOf[p.value()]];
    if ((p + 1).value() >= blk.end) return std::nullopt; // its gap runs into the next block
    if (isFixed(s.order[p + 1])) return std::nullopt;
    return m_controlRules->leastAllowedStall(i, 1, c.yield);
}

} // namespace sassx
