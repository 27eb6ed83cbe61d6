#include "commands.h"

#include <cstdio>
#include <fstream>
#include <iterator>

int fail(const std::string& message, int code)
{
    // One line: details that follow a message's first line (a decoder's own lines) are for the GUI.
    const std::string line = message.substr(0, message.find('\n'));
    std::fprintf(stderr, "sassx-cli: %s\n", line.c_str());
    return code;
}

bool readFileBytes(const std::string& path, std::vector<uint8_t>& out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), {});
    return true;
}
