// Ampere and Ada (sm_80, sm_86, sm_89): latency tables from public microbenchmarks and Mesa
// NAK's sm_80 figures (resources/latency/sm_8x.json name theirs), never measured by sassx; the yield
// and reuse class rows are Hopper's, applied without a measurement of their own. Everything is allowed,
// on a table's evidence (TableArchModel::decide).
#include "core/analysis/arch_model.h"

namespace sassx {

std::shared_ptr<const ArchModel> makeAmpereAdaModel(int sm)
{
    int table = 0;
    switch (sm) {
    case 80:
    case 86:
    case 89:
        table = sm;
        break;
    default:
        return nullptr;
    }
    return std::make_shared<TableArchModel>(sm, table, FigureOrigin::Table, FigureOrigin::Borrowed);
}

} // namespace sassx
