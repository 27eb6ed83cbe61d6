#include "core/rewrite/legality.h"

namespace sassx {

LegalityChecker::LegalityChecker(std::shared_ptr<const KernelAnalysis> analysis)
    : LegalityChecker(std::make_shared<const KernelModel>(std::move(analysis)))
{
}

LegalityChecker::LegalityChecker(std::shared_ptr<const KernelModel> model)
    : m_model(model), m_checker(model), m_enumerator(model), m_rescheduler(model)
{
}

void LegalityChecker::addWalls(const std::vector<std::pair<InstrId, std::string>>& walls)
{
    m_model = m_model->withWalls(walls);
    m_checker = ScheduleChecker(m_model);
    m_enumerator = MoveEnumerator(m_model);
    m_rescheduler = Rescheduler(m_model);
}

} // namespace sassx
