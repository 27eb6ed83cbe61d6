#include "core/common/temp_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <system_error>
#include <utility>

namespace sassx {
namespace fs = std::filesystem;

namespace {

std::string templateIn(std::string_view prefix, std::string_view suffix)
{
    std::error_code ec;
    fs::path dir = fs::temp_directory_path(ec); // $TMPDIR (and TMP, TEMP, TEMPDIR), else /tmp
    if (ec) dir = "/tmp";
    return (dir / (std::string(prefix) + "XXXXXX" + std::string(suffix))).string();
}

} // namespace

Result<TempFile> TempFile::create(std::string_view prefix, std::string_view suffix)
{
    std::string name = templateIn(prefix, suffix);
    // Close-on-exec: the children sassx starts (nvdisasm, the worker) never inherit it.
    const int fd = ::mkostemps(name.data(), int(suffix.size()), O_CLOEXEC);
    if (fd < 0) return makeError("cannot create a temporary file " + name + ": " + std::strerror(errno));
    return TempFile(fs::path(name), fd);
}

TempFile::TempFile(TempFile&& other) noexcept
    : m_path(std::exchange(other.m_path, {})), m_fd(std::exchange(other.m_fd, -1))
{
}

TempFile& TempFile::operator=(TempFile&& other) noexcept
{
    if (this != &other) {
        release();
        m_path = std::exchange(other.m_path, {});
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

TempFile::~TempFile()
{
    release();
}

void TempFile::release()
{
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
    if (!m_path.empty()) ::unlink(m_path.c_str());
    m_path.clear();
}

Status TempFile::writeAndClose(std::span<const uint8_t> bytes)
{
    if (m_fd < 0) return makeError("temporary file " + m_path.string() + " is already closed");
    const uint8_t* p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(m_fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
            ::close(m_fd);
            m_fd = -1;
            return makeError("cannot write the temporary file " + m_path.string() + ": " + why);
        }
        p += n;
        left -= size_t(n);
    }
    const int rc = ::close(m_fd);
    m_fd = -1;
    if (rc != 0)
        return makeError("cannot write the temporary file " + m_path.string() + ": " + std::strerror(errno));
    return Ok{};
}

Result<TempDir> TempDir::create(std::string_view prefix)
{
    std::string name = templateIn(prefix, "");
    if (!::mkdtemp(name.data()))
        return makeError("cannot create a temporary directory " + name + ": " + std::strerror(errno));
    return TempDir(fs::path(name));
}

TempDir::TempDir(TempDir&& other) noexcept : m_path(std::exchange(other.m_path, {})) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept
{
    if (this != &other) {
        release();
        m_path = std::exchange(other.m_path, {});
    }
    return *this;
}

TempDir::~TempDir()
{
    release();
}

void TempDir::release()
{
    if (m_path.empty()) return;
    std::error_code ec;
    fs::remove_all(m_path, ec);
    m_path.clear();
}

} // namespace sassx
