#pragma once
// The `sassx-cli annotate --json` contract (README.md, "CLI"): arch, kernel, instructions[...].
#include "core/analysis/kernel_analysis.h"

#include <nlohmann/json.hpp>

namespace sassx {

nlohmann::json annotationJson(const KernelAnalysis& analysis, const std::string& arch);
nlohmann::json instructionJson(const KernelAnalysis& analysis, uint32_t index);
std::string hex16(uint64_t v);

// Human-readable listing with control codes, blocks and dependency distances (golden files use it).
std::string annotationText(const KernelAnalysis& analysis, const std::string& arch);

} // namespace sassx
