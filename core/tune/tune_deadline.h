#pragma once
// `--total-time T` as a deadline (docs/tune.md): the plan splits T over the kernels by time share
// (splitBudget), but a kernel's wall time is its search plus what comes before and after it (opening the
// kernel and measuring its baseline; confirming, re-measuring and verifying a best on fresh inputs: on an
// H200 from seconds to two minutes for kernels with large arguments: docs/status.md, "Per-kernel
// overhead of a tune"). So each kernel's search budget is decided when it starts, from
// the time left: its planned part scaled down to what remains after the kernels in flight and the
// overhead measured on the kernels already done. A kernel whose scaled budget falls below a quarter of
// its plan is not started (a later tune runs it) rather than given a search too short to mean anything.
#include <cstddef>
#include <optional>
#include <vector>

namespace sassx::tune {

class TuneDeadline
{
public:
    // `planned`: each kernel's part of `totalSeconds`; `slots`: kernels run at once.
    TuneDeadline(double totalSeconds, std::vector<double> planned, size_t slots);

    // Kernel i starts `elapsed` seconds after the tune began: its search budget in seconds, or nothing
    // when the time left cannot give it a quarter of its plan (it is then counted as not started).
    std::optional<double> start(size_t i, double elapsed);
    // Kernel i ended: its wall time beyond its search is the overhead expected of the kernels to come.
    void finish(size_t i, double elapsed, double searchSeconds);
    // Kernel i ended without a search of its own (an earlier tune had finished it): no overhead sample.
    void release(size_t i);

    // The overhead per kernel (wall - search) measured so far, 0 before any kernel ended.
    double overheadPerKernel() const;

private:
    struct Slot
    {
        bool started = false;
        bool running = false;
        double startedAt = 0.0;
        double budget = 0.0;
    };
    double m_total;
    std::vector<double> m_planned;
    size_t m_slots;
    std::vector<Slot> m_kernels;
    double m_overheadSum = 0.0;
    int m_overheadCount = 0;
};

} // namespace sassx::tune
