#include "core/common/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <random>

namespace sassx {
namespace fs = std::filesystem;

namespace {

// The file a write to `path` must replace: `path` itself, or what its chain of symbolic links names.
fs::path resolveLinks(const fs::path& path)
{
    fs::path target = path;
    std::error_code ec;
    for (int depth = 0; depth < 128 && fs::is_symlink(target, ec); ++depth) {
        const fs::path next = fs::read_symlink(target, ec);
        if (ec) break;
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    return target;
}

// Creates <dir>/.<name>.<random> exclusively. open(2) with mode 0666 applies the umask for us, which a
// mkstemp file (always 0600) would not.
int createSibling(const fs::path& target, fs::path& created)
{
    std::random_device seed;
    std::mt19937_64 rng(seed());
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[17];
        std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng()));
        created = dir / ("." + target.filename().string() + "." + suffix);
        const int fd = ::open(created.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

} // namespace

Status writeFileAtomically(const std::string& path, std::string_view contents)
{
    auto fail = [&](const char* verb, int err) {
        return makeError(std::string(verb) + " " + path + ": " + std::strerror(err));
    };
    const fs::path target = resolveLinks(path);
    struct stat existing
    {
    };
    const bool exists = ::stat(target.c_str(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode)) return fail("cannot write", EISDIR);

    fs::path temp;
    const int fd = createSibling(target, temp);
    if (fd < 0) return fail("cannot write", errno);
    auto abandon = [&](const char* verb) {
        const int err = errno;
        ::close(fd);
        ::unlink(temp.c_str());
        return fail(verb, err);
    };
    if (exists && ::fchmod(fd, existing.st_mode & 07777) != 0) return abandon("cannot write");
    for (size_t done = 0; done < contents.size();) {
        const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) errno = EIO;
        if (n <= 0) return abandon("cannot write");
        done += size_t(n);
    }
    if (::fsync(fd) != 0) return abandon("cannot write");
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return fail("cannot write", err);
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return fail("cannot save", err);
    }
    return Ok{};
}

} // namespace sassx
