// The PPO plug-in's entry point (agent.h): the one symbol agent_loader.cpp looks up.
#include "core/search/rl/ppo_agent.h"

extern "C" __attribute__((visibility("default"))) sassx::search::ScheduleAgent*
sassx_make_ppo_agent(int abi, const sassx::search::PpoSettings* settings, int actionDim, int stateDim,
                     uint64_t seed, std::string* error)
{
    try {
        if (abi != sassx::search::kAgentAbiVersion) {
            if (error)
                *error = "plug-in ABI " + std::to_string(sassx::search::kAgentAbiVersion) +
                         ", sassx asks for " + std::to_string(abi) + ": rebuild the plug-in";
            return nullptr;
        }
        if (!settings || actionDim < 1 || stateDim < 1) {
            if (error) *error = "bad dimensions";
            return nullptr;
        }
        return new sassx::search::rl::PpoAgent(*settings, actionDim, stateDim, seed);
    } catch (const std::exception& e) {
        if (error) *error = e.what();
        return nullptr;
    }
}
