#pragma once
// The `sassx-cli annotate --json` contract (README.md, "CLI"): arch, kernel, instructions[...].
// Re-exported for the front ends' text forms of the same facts: an instruction (instruction_text.h), its
// control codes (control_text.h) and a dependency's required latency with its source
// (required_latency.h) are written one way, in this JSON, the CLI's text and on screen alike.
#include "core/analysis/kernel_analysis.h"
#include "core/analysis/required_latency.h"
#include "core/rewrite/schedule_index.h"
#include "core/sass/control_text.h"
#include "core/sass/instruction_text.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace sassx {

struct SourceMap;
struct SourceLineSummary;

// With a source map, each instruction gets "source" ({file, line, column, text, inlined}) and
// "ptx_line" where it has them, and the top level "line_info" (files, notes).
nlohmann::json annotationJson(const KernelAnalysis& analysis, const std::string& arch,
                              const SourceMap* source = nullptr);
nlohmann::json instructionJson(const KernelAnalysis& analysis, InstrId index);
std::string hex16(uint64_t v);

// Human-readable listing with control codes, blocks and dependency distances (golden files use it).
// With a source map, a "// file:line  text" line wherever the source line changes (as nvdisasm's
// --print-line-info does) and each instruction's PTX line as "ptx=N".
std::string annotationText(const KernelAnalysis& analysis, const std::string& arch,
                           const SourceMap* source = nullptr);

// `annotate --source`: one row per source line (instructions, samples, changed in the variant, text).
std::string sourceLinesText(const SourceMap& source, const std::vector<SourceLineSummary>& lines,
                            bool withSamples, bool withVariant);
nlohmann::json sourceLinesJson(const SourceMap& source, const std::vector<SourceLineSummary>& lines,
                               bool withSamples, bool withVariant);

} // namespace sassx
