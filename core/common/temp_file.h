#pragma once
// Temporary files and directories in the system's temporary directory ($TMPDIR, else /tmp), created
// with unique names (mkstemps, mkdtemp) and removed when the owning object goes away.
#include "core/common/result.h"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace sassx {

class TempFile
{
public:
    // A new, empty file named <prefix>XXXXXX<suffix>, e.g. ("sassx-", ".cubin").
    static Result<TempFile> create(std::string_view prefix, std::string_view suffix);
    TempFile(TempFile&& other) noexcept;
    TempFile& operator=(TempFile&& other) noexcept;
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile(); // removes the file

    const std::filesystem::path& path() const { return m_path; }
    // Writes all of `bytes` and closes the file, so another process can read it whole.
    Status writeAndClose(std::span<const uint8_t> bytes);

private:
    TempFile(std::filesystem::path path, int fd) : m_path(std::move(path)), m_fd(fd) {}
    void release();
    std::filesystem::path m_path;
    int m_fd = -1;
};

class TempDir
{
public:
    // A new, empty directory named <prefix>XXXXXX.
    static Result<TempDir> create(std::string_view prefix);
    TempDir(TempDir&& other) noexcept;
    TempDir& operator=(TempDir&& other) noexcept;
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir(); // removes the directory and everything in it

    const std::filesystem::path& path() const { return m_path; }

private:
    explicit TempDir(std::filesystem::path path) : m_path(std::move(path)) {}
    void release();
    std::filesystem::path m_path;
};

} // namespace sassx
