#include "core/session/gpu_list.h"

#include "core/eval/gpu_evaluator.h"

namespace sassx {

Status setGpuList(EvaluatorOptions& options, const std::string& list)
{
    auto gpus = eval::parseGpuList(list);
    if (!gpus) return gpus.error();
    options.gpus = std::move(*gpus);
    return Ok{};
}

} // namespace sassx
