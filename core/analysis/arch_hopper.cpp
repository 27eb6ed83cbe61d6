// Hopper (sm_90): the architecture sassx measures on. Its latency table carries cells measured on
// H100 and H200 (resources/latency/sm_90.json "measured"; docs/status.md, "Fixed-latency, WAR, WAW and
// scoreboard bounds") over the public class figures, and the yield and reuse class rows were measured here
// (docs/status.md, "Yield flips per class", "Reuse flags kept under Y0, per class and mask").
#include "core/analysis/arch_model.h"

namespace sassx {

std::shared_ptr<const ArchModel> makeHopperModel(int sm)
{
    if (sm != 90) return nullptr;
    return std::make_shared<TableArchModel>(sm, 90, FigureOrigin::Measured, FigureOrigin::Measured);
}

} // namespace sassx
