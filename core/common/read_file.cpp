#include "core/common/read_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace sassx {

namespace fs = std::filesystem;

std::string irregularFileReason(const std::string& path)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || st.type() == fs::file_type::not_found)
        return st.type() == fs::file_type::not_found || ec == std::errc::no_such_file_or_directory
                   ? "no such file or directory"
                   : "cannot inspect: " + ec.message();
    switch (st.type()) {
    case fs::file_type::regular:
        return {};
    case fs::file_type::directory:
        return "is a directory";
    case fs::file_type::fifo:
        return "not a regular file (a FIFO)";
    case fs::file_type::socket:
        return "not a regular file (a socket)";
    case fs::file_type::character:
    case fs::file_type::block:
        return "not a regular file (a device)";
    default:
        return "not a regular file";
    }
}

Result<std::vector<uint8_t>> readRegularFile(const std::string& path)
{
    // Checked before opening: opening a FIFO for reading blocks until a writer appears.
    if (std::string why = irregularFileReason(path); !why.empty()) return makeError(path + ": " + why);
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError("cannot open " + path + (errno ? ": " + std::string(std::strerror(errno)) : ""));
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return makeError("cannot read " + path);
    return bytes;
}

} // namespace sassx
