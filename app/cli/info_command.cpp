#include "cli_workspace.h"
#include "commands.h"

#include "core/session/input_loader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace {

struct InfoArgs
{
    std::string file;
    WorkspaceArgs workspace;
    bool json = false;
};

int runInfo(const InfoArgs& args)
{
    using namespace sassx;
    auto ws = Workspace::open(args.file, workspaceOptions(args.workspace));
    if (!ws) return fail(ws.message());
    const LoadedInput* in = &(*ws)->input();
    nlohmann::json out{
        {"path", in->path}, {"kind", inputKindName(in->kind)}, {"cubins", nlohmann::json::array()}};
    // Workspace::kernels() lists the same kernels in the same order, with the key --kernel takes.
    const auto& entries = (*ws)->kernels();
    size_t entry = 0;
    for (const auto& lc : in->cubins) {
        const auto& c = lc.cubin;
        nlohmann::json cj{
            {"origin", lc.origin}, {"arch", c.archName()}, {"kernels", nlohmann::json::array()}};
        // Blackwell's second form of the code (capmerc) and its merc companions, and whether edits are
        // allowed at all (core/analysis/arch_model.h).
        nlohmann::json merc = nlohmann::json::array();
        for (const std::string& name : mercSections(c))
            merc.push_back({{"section", name}, {"bytes", c.sections()[size_t(c.findSection(name))].size}});
        cj["merc_sections"] = merc;
        const std::string refusal = editRefusal(c);
        cj["edits"] = refusal.empty() ? nlohmann::json("allowed") : nlohmann::json(refusal);
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
    if (args.json) {
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s: %s, %zu cubin(s)\n", in->path.c_str(), inputKindName(in->kind).c_str(),
                in->cubins.size());
    for (const auto& cj : out["cubins"]) {
        std::printf("  %s (%s)\n", cj["arch"].get<std::string>().c_str(),
                    cj["origin"].get<std::string>().c_str());
        size_t mercOthers = 0;
        for (const auto& m : cj["merc_sections"]) {
            const std::string name = m["section"];
            if (name.rfind(".nv.capmerc.text.", 0) != 0) {
                ++mercOthers;
                continue;
            }
            std::printf(
                "    %s: %llu B, a second form of the code the driver may finalise instead of .text\n",
                name.c_str(), static_cast<unsigned long long>(m["bytes"].get<uint64_t>()));
        }
        if (mercOthers) std::printf("    .nv.merc.*: %zu more section(s) (--json lists them)\n", mercOthers);
        if (cj["edits"] != "allowed")
            std::printf("    edits off: %s\n", cj["edits"].get<std::string>().c_str());
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

} // namespace

CliCommand addInfoCommand(CLI::App& root)
{
    auto args = std::make_shared<InfoArgs>();
    CLI::App* command =
        root.add_subcommand("info", "cubins, kernels (with the keys --kernel takes) and attributes");
    command->add_option("FILE", args->file, "a cubin, fatbin, host binary, .cu/.ptx or Triton cache entry")
        ->required();
    addArchOption(*command, args->workspace);
    command->add_flag("--json", args->json, "JSON instead of text");
    return {command, [args] { return runInfo(*args); }};
}
