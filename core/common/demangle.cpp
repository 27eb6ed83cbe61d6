#include "core/common/demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace sassx {

std::string demangle(const std::string& symbol)
{
    if (symbol.rfind("_Z", 0) != 0) return symbol;
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(
        abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : symbol;
}

} // namespace sassx
