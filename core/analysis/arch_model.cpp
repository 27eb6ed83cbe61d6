#include "core/analysis/arch_model.h"

#include <map>
#include <mutex>

namespace sassx {

const char* figureOriginName(FigureOrigin origin)
{
    switch (origin) {
    case FigureOrigin::Measured:
        return "measured";
    case FigureOrigin::Table:
        return "table";
    case FigureOrigin::Borrowed:
        return "borrowed";
    case FigureOrigin::None:
        return "none";
    }
    return "none";
}

TableArchModel::TableArchModel(int sm, int tableSm, FigureOrigin latencyOrigin, FigureOrigin controlOrigin)
    : m_sm(sm), m_tableSm(tableSm), m_latencyOrigin(latencyOrigin), m_controlOrigin(controlOrigin)
{
    // A missing or broken table leaves every pair at ptxas' distance, as an unknown pair does.
    if (auto t = LatencyTable::load(tableSm)) m_table = std::move(*t);
    if (m_table.isEmpty()) m_latencyOrigin = FigureOrigin::None;
}

std::string TableArchModel::latencyLabel() const
{
    if (!m_table.label().empty()) return m_table.label();
    if (m_latencyOrigin == FigureOrigin::None) return "no latency table for " + name();
    return "table: " + m_table.source();
}

const YieldClassEvidence& TableArchModel::yieldEvidence(const Instruction& ins) const
{
    return yieldEvidenceFor(ins);
}

const ReuseUnderY0Evidence& TableArchModel::reuseUnderY0Evidence(const Instruction& ins) const
{
    return reuseUnderY0EvidenceFor(ins);
}

std::shared_ptr<const ArchModel> ArchModel::forSm(int sm)
{
    static std::mutex mutex;
    static std::map<int, std::shared_ptr<const ArchModel>> models;
    std::lock_guard lock(mutex);
    auto& model = models[sm];
    if (!model) model = makeHopperModel(sm);
    if (!model) model = makeAmpereAdaModel(sm);
    if (!model) model = makeBlackwellModel(sm);
    // Not a known architecture: no table to load, rows as elsewhere but borrowed.
    if (!model) model = std::make_shared<TableArchModel>(sm, sm, FigureOrigin::None, FigureOrigin::Borrowed);
    return model;
}

} // namespace sassx
