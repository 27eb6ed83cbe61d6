#pragma once
// The GPUs a front end names ("0,2": sassx-cli's --gpus, the search panel's field) put into the evaluator
// options, with the worker pool's own parser, so both accept and refuse the same lists.
#include "core/common/result.h"
#include "core/session/evaluator_options.h"

#include <string>

namespace sassx {

// Sets `options.gpus` from `list`; an error names the bad entry and leaves `options` as it was.
Status setGpuList(EvaluatorOptions& options, const std::string& list);

} // namespace sassx
