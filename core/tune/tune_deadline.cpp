#include "core/tune/tune_deadline.h"

#include <algorithm>

namespace sassx::tune {

TuneDeadline::TuneDeadline(double totalSeconds, std::vector<double> planned, size_t slots)
    : m_total(totalSeconds), m_planned(std::move(planned)), m_slots(std::max<size_t>(1, slots)),
      m_kernels(m_planned.size())
{
}

double TuneDeadline::overheadPerKernel() const
{
    return m_overheadCount > 0 ? m_overheadSum / m_overheadCount : 0.0;
}

std::optional<double> TuneDeadline::start(size_t i, double elapsed)
{
    if (i >= m_planned.size()) return std::nullopt;
    const double overhead = overheadPerKernel();
    double pendingPlanned = 0.0, inFlight = 0.0;
    size_t pending = 0;
    for (size_t j = 0; j < m_kernels.size(); ++j) {
        const Slot& k = m_kernels[j];
        if (!k.started) {
            pendingPlanned += m_planned[j];
            ++pending;
        } else if (k.running && j != i) {
            // What the kernels on the other slots still hold of the time left.
            inFlight += std::max(0.0, k.startedAt + k.budget + overhead - elapsed);
        }
    }
    Slot& me = m_kernels[i];
    me.started = true;
    if (pendingPlanned <= 0.0) return std::nullopt;
    const double capacity = (m_total - elapsed) * double(m_slots) - inFlight - overhead * double(pending);
    // A shortfall under a millisecond (the time before the first kernel starts) leaves the plan as it is.
    const double budget = capacity >= pendingPlanned - 1e-3
                              ? m_planned[i]
                              : std::min(m_planned[i], capacity * m_planned[i] / pendingPlanned);
    if (budget < m_planned[i] / 4.0) return std::nullopt;
    me.running = true;
    me.startedAt = elapsed;
    me.budget = budget;
    return budget;
}

void TuneDeadline::finish(size_t i, double elapsed, double searchSeconds)
{
    if (i >= m_kernels.size() || !m_kernels[i].running) return;
    Slot& k = m_kernels[i];
    k.running = false;
    m_overheadSum += std::max(0.0, elapsed - k.startedAt - searchSeconds);
    ++m_overheadCount;
}

void TuneDeadline::release(size_t i)
{
    if (i < m_kernels.size()) m_kernels[i].running = false;
}

} // namespace sassx::tune
