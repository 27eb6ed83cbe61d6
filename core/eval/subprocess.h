#pragma once
// The child-process runner lives in core/common (nvdisasm and the compilers use it too); these names
// keep the evaluator's spelling, sassx::eval::Subprocess and sassx::eval::runProcess, valid.
#include "core/common/subprocess.h"

namespace sassx::eval {
using sassx::ProcessOutput;
using sassx::runProcess;
using sassx::Subprocess;
} // namespace sassx::eval
