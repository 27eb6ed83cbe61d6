#include "cli_workspace.h"
#include "commands.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

int runInfoCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args = parseArgs(raw, {{"--arch"}, {"--json"}}, err);
    if (!err.empty() || args.positional.size() != 1)
        return fail(err.empty() ? "usage: sassx-cli info FILE [--arch A] [--json]" : err);
    auto options = workspaceOptions(args);
    if (!options) return fail(options.message());
    auto ws = Workspace::open(args.positional[0], *options);
    if (!ws) return fail(ws.message());
    const LoadedInput* in = &(*ws)->input();
    nlohmann::json out{{"path", in->path}, {"kind", in->kind}, {"cubins", nlohmann::json::array()}};
    // Workspace::kernels() lists the same kernels in the same order, with the key --kernel takes.
    const auto& entries = (*ws)->kernels();
    size_t entry = 0;
    for (const auto& lc : in->cubins) {
        const auto& c = lc.cubin;
        nlohmann::json cj{
            {"origin", lc.origin}, {"arch", c.archName()}, {"kernels", nlohmann::json::array()}};
        for (const auto& k : c.kernels()) {
            nlohmann::json params = nlohmann::json::array();
            for (const auto& p : k.params)
                params.push_back({{"ordinal", p.ordinal}, {"offset", p.offset}, {"size", p.size}});
            nlohmann::json attrs = nlohmann::json::array();
            for (const auto& a : k.attributes)
                attrs.push_back(nvinfo::attributeName(a.attribute));
            nlohmann::json offs = nlohmann::json::object();
            for (const auto& l : k.instrOffsets)
                offs[nvinfo::attributeName(l.attribute)] = l.offsets;
            const KernelEntry& e = entries[entry++];
            nlohmann::json kj{{"name", k.name},
                              {"key", e.key},
                              {"demangled", e.demangled},
                              {"instructions", k.codeSize / 16},
                              {"code_bytes", k.codeSize},
                              {"params", params},
                              {"shared_static", k.sharedMemStatic},
                              {"relocations", k.relocations.size()},
                              {"attributes", attrs},
                              {"instruction_offsets", offs}};
            if (k.regCount) kj["registers"] = *k.regCount;
            if (k.maxThreads) kj["max_threads"] = *k.maxThreads;
            cj["kernels"].push_back(kj);
        }
        out["cubins"].push_back(cj);
    }
    if (args.has("--json")) {
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s: %s, %zu cubin(s)\n", in->path.c_str(), in->kind.c_str(), in->cubins.size());
    for (const auto& cj : out["cubins"]) {
        std::printf("  %s (%s)\n", cj["arch"].get<std::string>().c_str(),
                    cj["origin"].get<std::string>().c_str());
        for (const auto& kj : cj["kernels"]) {
            const std::string key = kj["key"], demangled = kj["demangled"];
            std::printf("    %s%s: %llu instructions, %zu params, %s registers, %llu B static shared\n",
                        key.c_str(), demangled == kj["name"] ? "" : (" = " + demangled).c_str(),
                        static_cast<unsigned long long>(kj["instructions"].get<uint64_t>()),
                        kj["params"].size(),
                        kj.contains("registers") ? std::to_string(kj["registers"].get<int>()).c_str() : "?",
                        static_cast<unsigned long long>(kj["shared_static"].get<uint64_t>()));
        }
    }
    return 0;
}
