#pragma once
// Output comparison of a candidate against the reference. Rules (docs/evaluator.md):
//  - bitwise unless the spec gives a tolerance; with one, |got - ref| <= atol + rtol * |ref|;
//  - a NaN in the candidate's output never passes, not even against a NaN reference;
//  - an infinity must match exactly.
#include "core/eval/dtype.h"
#include "core/eval/launch_spec.h"

#include <cstdint>
#include <span>
#include <string>

namespace sassx::eval {

struct CompareResult
{
    bool pass = true;
    uint64_t mismatches = 0;
    uint64_t nans = 0;
    uint64_t firstMismatch = 0; // element index, valid when !pass
    double firstRef = 0.0;
    double firstGot = 0.0;
    double maxAbsError = 0.0;
    std::string describe(const std::string& bufferName) const;
};

// `referenceNanFree`: the caller has checked the reference holds no NaN, so identical bytes pass
// without a NaN scan (the worker checks its references once, at load_baseline).
CompareResult compareBuffers(DType dtype, std::span<const uint8_t> reference, std::span<const uint8_t> got,
                             const Tolerance& tolerance, bool referenceNanFree = false);

// Counts NaN elements (floats only): a reference with NaN in it means the spec's inputs make the
// original produce NaN, or the original leaves elements unwritten (still poison).
uint64_t countNaN(DType dtype, std::span<const uint8_t> data);

} // namespace sassx::eval
