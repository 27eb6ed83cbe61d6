#pragma once
// C++ symbol names as people read them ("shared_kernel(float const*, float*, int)"), through the C++
// ABI's own demangler (libstdc++/libc++ abi::__cxa_demangle) rather than a hand-written one.
#include <string>

namespace sassx {

// The demangled form of an Itanium-mangled name ("_Z..."); anything else (an extern "C" kernel, a
// Triton kernel, a name the demangler rejects) comes back unchanged.
std::string demangle(const std::string& symbol);

} // namespace sassx
