#include "core/analysis/arch_model.h"

#include "core/cubin/cubin.h"

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

ArchDecision TableArchModel::decide(ArchCapability capability, const std::string& archName) const
{
    switch (capability) {
    case ArchCapability::View:
        return {true, FigureOrigin::Measured, archName + " decodes with the pinned nvdisasm"};
    case ArchCapability::Estimate:
        return {true, FigureOrigin::Table, archName + ": latencies from the sm_80-family table"};
    case ArchCapability::Edit:
        return {true, FigureOrigin::Table, archName + ": ptxas' own distances and the sm_80-family table"};
    case ArchCapability::Measure:
        return {true, FigureOrigin::None, archName + ": the worker runs it on a GPU of its architecture"};
    }
    return {};
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

std::vector<std::string> mercSections(const Cubin& cubin)
{
    std::vector<std::string> out;
    for (const ElfSection& s : cubin.sections())
        if (s.name.starts_with(".nv.capmerc.") || s.name.starts_with(".nv.merc.")) out.push_back(s.name);
    return out;
}

std::string editRefusal(const Cubin& cubin)
{
    const ArchDecision edit =
        ArchModel::forSm(cubin.smVersion())->decide(ArchCapability::Edit, cubin.archName());
    if (!edit.allowed) return edit.reason;
    for (const std::string& name : mercSections(cubin))
        if (name.starts_with(".nv.capmerc.text."))
            return cubin.archName() + ": " + name +
                   " holds a second form of the code that the driver may run instead of an edited .text; "
                   "edits are off";
    return {};
}

} // namespace sassx
