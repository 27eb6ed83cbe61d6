#include "core/search/agent_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

namespace sassx::search {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPluginName = "libsassx_ppo.so";

std::vector<std::string> candidates()
{
    std::vector<std::string> out;
    if (const char* env = std::getenv("SASSX_PPO_PLUGIN"); env && *env) return {env};
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        out.push_back((exe.parent_path() / kPluginName).string());
        out.push_back((exe.parent_path().parent_path() / "lib" / kPluginName).string());
    }
#ifdef SASSX_PPO_PLUGIN_BUILD_PATH
    out.push_back(SASSX_PPO_PLUGIN_BUILD_PATH);
#endif
    return out;
}

struct Loaded
{
    AgentFactoryFn factory = nullptr;
    std::string error;
};

const Loaded& plugin()
{
    static Loaded loaded;
    static std::once_flag once;
    std::call_once(once, [] {
        auto path = ppoPluginPath();
        if (!path) {
            loaded.error = path.message();
            return;
        }
        // RTLD_LOCAL: libtorch's symbols stay out of sassx's namespace.
        void* handle = dlopen(path->c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            loaded.error = "cannot load the PPO plug-in " + *path + ": " + (why ? why : "unknown error");
            return;
        }
        loaded.factory = reinterpret_cast<AgentFactoryFn>(dlsym(handle, kAgentFactorySymbol));
        if (!loaded.factory)
            loaded.error = *path + " is not a sassx PPO plug-in (no " + kAgentFactorySymbol + ")";
    });
    return loaded;
}

} // namespace

Result<std::string> ppoPluginPath()
{
    std::string looked;
    for (const std::string& c : candidates()) {
        std::error_code ec;
        if (fs::is_regular_file(c, ec)) return c;
        looked += (looked.empty() ? "" : ", ") + c;
    }
    return makeError("PPO needs the libtorch plug-in " + std::string(kPluginName) +
                     ", built when libtorch is found (Debian: libtorch-dev); not found in " + looked);
}

Result<std::unique_ptr<ScheduleAgent>> makePpoAgent(const PpoSettings& settings, int actionDim, int stateDim,
                                                    uint64_t seed)
{
    const Loaded& p = plugin();
    if (!p.factory) return makeError(p.error);
    std::string error;
    ScheduleAgent* agent = p.factory(kAgentAbiVersion, &settings, actionDim, stateDim, seed, &error);
    if (!agent) return makeError("the PPO plug-in refused: " + error);
    return std::unique_ptr<ScheduleAgent>(agent);
}

Result<std::unique_ptr<ScheduleAgent>> makePpoAgentFromFile(const std::string& path,
                                                            const PpoSettings& settings, int actionDim,
                                                            int stateDim, uint64_t seed)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("cannot read the policy " + path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    auto agent = makePpoAgent(settings, actionDim, stateDim, seed);
    if (!agent) return agent.error();
    if (std::string why = (*agent)->load(bytes.str(), false); !why.empty())
        return makeError("the policy " + path + " does not fit: " + why);
    return agent;
}

} // namespace sassx::search
