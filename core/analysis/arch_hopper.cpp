// Hopper (sm_90): the architecture sassx measures on. Its latency table carries cells measured on
// H100 and H200 (resources/latency/sm_90.json "measured"; docs/status.md, "Fixed-latency, WAR, WAW and
// scoreboard bounds") over the public class figures, and the yield and reuse class rows were measured here
// (docs/status.md, "Yield flips per class", "Reuse flags kept under Y0, per class and mask"), so its
// estimates, edits and measurements stand on measured evidence.
#include "core/analysis/arch_model.h"

namespace sassx {

namespace {

class HopperModel : public TableArchModel
{
public:
    explicit HopperModel(int sm) : TableArchModel(sm, 90, FigureOrigin::Measured, FigureOrigin::Measured) {}

    ArchDecision decide(ArchCapability capability, const std::string& archName) const override
    {
        switch (capability) {
        case ArchCapability::View:
            break;
        case ArchCapability::Estimate:
            return {true, FigureOrigin::Measured, archName + ": latencies measured on an H100/H200"};
        case ArchCapability::Edit:
            return {true, FigureOrigin::Measured,
                    archName + ": latency, yield and reuse rules measured on an H100/H200"};
        case ArchCapability::Measure: {
            ArchDecision measure = TableArchModel::decide(capability, archName);
            measure.evidence = FigureOrigin::Measured;
            return measure;
        }
        }
        return TableArchModel::decide(capability, archName);
    }
};

} // namespace

std::shared_ptr<const ArchModel> makeHopperModel(int sm)
{
    if (sm != 90) return nullptr;
    return std::make_shared<HopperModel>(sm);
}

} // namespace sassx
