// Which process holds a run (docs/tune.md, "Resume"): runs record their owner as host:pid, so a tune
// leaves alone a run that a live process of this host holds and resumes one whose process is gone. An
// owner on another host is neither: this host cannot tell.
#include "core/tune/tune_db.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <unistd.h>

namespace sassx::tune {

namespace {

// The pid of `owner` when it is another process of this host.
std::optional<pid_t> otherProcessOfThisHost(const std::string& owner)
{
    const auto colon = owner.rfind(':');
    const std::string self = TuneDb::processOwner();
    if (colon == std::string::npos || owner == self ||
        owner.substr(0, colon) != self.substr(0, self.rfind(':')))
        return std::nullopt;
    const long pid = std::strtol(owner.c_str() + colon + 1, nullptr, 10);
    if (pid <= 0) return std::nullopt;
    return pid_t(pid);
}

} // namespace

std::string TuneDb::processOwner()
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return std::string(host) + ":" + std::to_string(getpid());
}

bool TuneDb::ownerAlive(const std::string& owner)
{
    const auto pid = otherProcessOfThisHost(owner);
    return pid && (kill(*pid, 0) == 0 || errno == EPERM);
}

bool TuneDb::ownerGone(const std::string& owner)
{
    const auto pid = otherProcessOfThisHost(owner);
    return pid && kill(*pid, 0) != 0 && errno == ESRCH;
}

} // namespace sassx::tune
