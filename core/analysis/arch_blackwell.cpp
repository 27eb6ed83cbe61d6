// Blackwell (sm_100, sm_101, sm_103, sm_110 data-centre and embedded parts; sm_120, sm_121 desktop
// parts): latency tables derived from the register-scheduling figures NVIDIA provided to Mesa NAK
// (B100 figures; NAK pads them for the desktop parts, resources/latency/sm_120.json), never measured
// by sassx: every figure is labelled a table's. The yield and reuse class rows are Hopper's, applied
// without a Blackwell measurement.
#include "core/analysis/arch_model.h"

namespace sassx {

std::shared_ptr<const ArchModel> makeBlackwellModel(int sm)
{
    int table = 0;
    switch (sm) {
    case 100:
    case 101:
    case 103:
    case 110:
        table = 100;
        break;
    case 120:
    case 121:
        table = 120;
        break;
    default:
        return nullptr;
    }
    return std::make_shared<TableArchModel>(sm, table, FigureOrigin::Table, FigureOrigin::Borrowed);
}

} // namespace sassx
