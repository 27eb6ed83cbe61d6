#pragma once
// Where each instruction of a kernel came from: its source file, line and column and the function it
// was inlined from (.debug_line), and its line of the embedded PTX (.nv_debug_line_sass over
// .nv_debug_ptx_txt). Per instruction, what `nvdisasm --print-line-info`, `-gi` and
// `--print-line-info-ptx` print between instructions (core/cubin/line_program.h has the facts).
//
// The map is built from the cubin alone, so it is safe on any bytes (the fuzzer builds it); the
// source text is read separately (loadSourceTexts), since the files live where the kernel was
// compiled, if anywhere.
#include "core/common/result.h"
#include "core/cubin/cubin.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sassx {

struct SourceLocation
{
    int file = -1;       // index into SourceMap::files; -1: no source row covers the instruction
    uint32_t line = 0;   // from 1
    uint32_t column = 0; // 0: not recorded
    // Inlined code: the inlined function (index into SourceMap::functions) and the call site it was
    // inlined at. -1: not inlined.
    int function = -1;
    int callFile = -1;
    uint32_t callLine = 0;
    uint32_t ptxLine = 0; // line of .nv_debug_ptx_txt, from 1; 0: none

    bool hasSource() const { return file >= 0 && line > 0; }
    bool operator==(const SourceLocation&) const = default;
};

struct SourceFile
{
    std::string path;               // as the line table records it ("directory/name")
    std::string name;               // the file name alone
    std::string foundAt;            // where its text was read; empty: not at hand
    std::vector<std::string> lines; // its text, lines[0] being line 1
};

struct SourceMap
{
    std::vector<SourceLocation> byPosition; // one per instruction of the original code (offset / 16)
    std::vector<SourceFile> files;
    std::vector<std::string> functions; // inlined functions' names (.debug_str)
    std::vector<std::string> ptxLines;  // .nv_debug_ptx_txt, ptxLines[0] being line 1
    bool hasSource = false;             // some instruction has a source line
    bool hasPtx = false;                // some instruction has a PTX line
    // What is missing and why, one sentence each ("no .debug_line: compiled without -lineinfo").
    std::vector<std::string> notes;

    bool empty() const { return !hasSource && !hasPtx; }
    // The text of the location's source line, of a PTX line; empty when not at hand.
    std::string_view sourceText(const SourceLocation& at) const;
    std::string_view ptxText(uint32_t ptxLine) const;
    // "attention.py:17" ("attention.py:17:5" with `column` and a recorded column); empty without source.
    std::string describe(const SourceLocation& at, bool column = false) const;
    // "attention.py:17" of the call site, "" when not inlined.
    std::string describeCallSite(const SourceLocation& at) const;
};

// The line info of `kernel`. A cubin without any (built without -lineinfo) gives an empty map whose
// notes say so; a line section that cannot be decoded gives an error of one line.
Result<SourceMap> buildSourceMap(const Cubin& cubin, const Kernel& kernel);

// Reads each file's text: from its recorded path, else the same file name in each of `searchDirs` in
// turn (the cubin's directory, a Triton cache entry). A file found nowhere keeps no text.
void loadSourceTexts(SourceMap& map, const std::vector<std::string>& searchDirs);

} // namespace sassx
