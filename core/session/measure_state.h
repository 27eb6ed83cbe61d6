#pragma once
// The Session's measure-thread state, shared by session.cpp (measurements) and session_stalls.cpp
// (stall samples): one evaluator, made on that thread on first use and used only there.
#include "core/session/kernel_evaluator.h"
#include "core/session/session.h"

#include <memory>

namespace sassx {

struct Session::MeasureState
{
    std::unique_ptr<KernelEvaluator> evaluator;
};

} // namespace sassx
