// Blackwell (sm_100, sm_101, sm_103, sm_110 data-centre and embedded parts; sm_120, sm_121 desktop
// parts): latency tables derived from the register-scheduling figures NVIDIA provided to Mesa NAK
// (B100 figures; NAK pads them for the desktop parts, resources/latency/sm_120.json), never measured
// by sassx: every figure is labelled a table's. The yield and reuse class rows are Hopper's, applied
// without a Blackwell measurement.
//
// Edits are refused (docs/architectures.md, "Why Blackwell edits are off"): none of the latency, yield
// or reuse classes has been measured on a Blackwell GPU, and its cubins carry `.nv.capmerc.text.<kernel>`,
// a second form of the code the driver may finalise instead of `.text`. The refusal changes only with a
// docs/status.md row to cite, once a Blackwell GPU has run bench/blackwell/run_device.sh.
#include "core/analysis/arch_model.h"

namespace sassx {

namespace {

class BlackwellModel : public TableArchModel
{
public:
    using TableArchModel::TableArchModel;

    ArchDecision decide(ArchCapability capability, const std::string& archName) const override
    {
        switch (capability) {
        case ArchCapability::View:
            return {true, FigureOrigin::Table,
                    archName +
                        " decodes with nvdisasm 12.8 or newer (sm_103/110/121 need 13.1); control bits "
                        "have the Hopper layout"};
        case ArchCapability::Estimate:
            return {true, FigureOrigin::Table,
                    archName +
                        ": latencies from a NAK-derived table, labelled as a table, not a measurement"};
        case ArchCapability::Edit:
            return {
                false, FigureOrigin::None,
                archName +
                    ": no measured latency/yield/reuse evidence for Blackwell (bench/blackwell/run_device.sh "
                    "has not run on a Blackwell GPU); edits are off"};
        case ArchCapability::Measure:
            return {true, FigureOrigin::None,
                    archName + ": the worker runs it on a Blackwell GPU; none has been lent, so nothing is "
                               "measured yet"};
        }
        return {};
    }
};

} // namespace

std::shared_ptr<const ArchModel> makeBlackwellModel(int sm)
{
    if (sm < 100 || sm >= 130) return nullptr;
    switch (sm) {
    case 100:
    case 101:
    case 103:
    case 110:
        return std::make_shared<BlackwellModel>(sm, 100, FigureOrigin::Table, FigureOrigin::Borrowed);
    case 120:
    case 121:
        return std::make_shared<BlackwellModel>(sm, 120, FigureOrigin::Table, FigureOrigin::Borrowed);
    default:
        // A Blackwell part without a table: no figures, and its edits refused as the family's are.
        return std::make_shared<BlackwellModel>(sm, sm, FigureOrigin::None, FigureOrigin::Borrowed);
    }
}

} // namespace sassx
