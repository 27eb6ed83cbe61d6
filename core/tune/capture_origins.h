#pragma once
// Where each kernel of a capture came from (capture.json's "origin" and "library", docs/driver-capture.md):
// Triton, a shared library's file, or an image compiled at run time. The report and the dashboard show it
// beside every kernel, the skipped ones too (a closed-source library's kernels among them).
#include "core/inject/module_origin.h"

#include <map>
#include <optional>
#include <string>

namespace sassx::tune {

// Kernel name -> origin, for every kernel and skipped kernel of DIR/capture.json that names one; empty
// when there is no capture or it names none (captures made before origins were recorded).
std::map<std::string, inject::ModuleOrigin> captureOrigins(const std::string& dir);

// "triton", "jit", "library libtorch_cuda.so" (the file's name; the path is in the JSON and tooltips).
std::string originText(const inject::ModuleOrigin& origin);

} // namespace sassx::tune
