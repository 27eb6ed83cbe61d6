#include "core/eval/candidate.h"

#include <mutex>

namespace sassx::eval {

struct Candidate::State
{
    bool original = false;
    std::shared_ptr<const Schedule> schedule;
    std::shared_ptr<const KernelAnalysis> analysis;
    Writer write;
    // Written once: a batch may hand the same candidate to several threads (the pool's workers).
    std::once_flag written;
    std::vector<uint8_t> bytes;
    std::string error;
};

Candidate::Candidate() : m_state(std::make_shared<State>())
{
    m_state->original = true;
    std::call_once(m_state->written, [] {});
}

Candidate Candidate::fromBytes(std::vector<uint8_t> bytes)
{
    Candidate c;
    c.m_state = std::make_shared<State>();
    c.m_state->bytes = std::move(bytes);
    std::call_once(c.m_state->written, [] {});
    return c;
}

Candidate Candidate::fromSchedule(std::shared_ptr<const Schedule> schedule,
                                  std::shared_ptr<const KernelAnalysis> analysis, Writer write)
{
    Candidate c;
    c.m_state = std::make_shared<State>();
    c.m_state->schedule = std::move(schedule);
    c.m_state->analysis = std::move(analysis);
    c.m_state->write = std::move(write);
    return c;
}

bool Candidate::isOriginal() const
{
    return m_state->original;
}

Result<const std::vector<uint8_t>*> Candidate::bytes() const
{
    State& s = *m_state;
    std::call_once(s.written, [&s] {
        auto written = s.write ? s.write() : Result<std::vector<uint8_t>>(makeError("nothing writes it"));
        if (written)
            s.bytes = std::move(*written);
        else
            s.error = written.message();
    });
    if (!s.error.empty()) return makeError(s.error);
    return &s.bytes;
}

const Schedule* Candidate::schedule() const
{
    return m_state->schedule.get();
}

const KernelAnalysis* Candidate::analysis() const
{
    return m_state->analysis.get();
}

} // namespace sassx::eval
