#include "cli_workspace.h"
#include "commands.h"

#include "core/session/annotation_json.h"
#include "core/session/kernel_stalls.h"
#include "core/session/source_lines.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

namespace {

struct AnnotateArgs
{
    std::string file;
    WorkspaceArgs workspace;
    bool json = false;
    std::string out;     // empty: stdout
    bool source = false; // one row per source line instead of the listing
    std::string stalls;  // stall samples of the original (sassx-cli stalls --json), for --source
    std::string variant; // a tuned cubin of the kernel, for --source's changed counts
};

// --stalls: the samples of the original mapped onto its instructions.
sassx::Result<sassx::KernelStalls> readStalls(const std::string& path, const sassx::KernelWorkspace& k)
{
    using namespace sassx;
    auto profile = readStallProfile(path);
    if (!profile) return profile.error();
    if (profile->kernel != k.name())
        return makeError(path + " holds samples of " + profile->kernel + ", not of " + k.name());
    return mapStalls(*profile, k.analysis(), Schedule::identity(k.analysis()));
}

// --variant: what the tuned cubin changed, instruction by instruction, against the original.
sassx::Result<sassx::ScheduleDiff> readVariant(const std::string& path, const sassx::KernelWorkspace& k)
{
    using namespace sassx;
    auto cubin = Cubin::load(path);
    if (!cubin) return makeError(cubin.message());
    auto schedule = k.scheduleOf(cubin->bytes(), path);
    if (!schedule) return schedule.error();
    return diffAgainstOriginal(k.analysis(), *schedule);
}

sassx::Result<std::string> sourceSummary(const AnnotateArgs& args, const sassx::KernelWorkspace& k,
                                         const sassx::SourceMap& map)
{
    using namespace sassx;
    std::optional<KernelStalls> stalls;
    std::optional<ScheduleDiff> diff;
    if (!args.stalls.empty()) {
        auto s = readStalls(args.stalls, k);
        if (!s) return s.error();
        stalls = std::move(*s);
    }
    if (!args.variant.empty()) {
        auto d = readVariant(args.variant, k);
        if (!d) return d.error();
        diff = std::move(*d);
    }
    const auto lines = summarizeSourceLines(map, stalls ? &*stalls : nullptr, diff ? &*diff : nullptr);
    return args.json ? sourceLinesJson(map, lines, bool(stalls), bool(diff)).dump(1) + "\n"
                     : sourceLinesText(map, lines, bool(stalls), bool(diff));
}

int runAnnotate(const AnnotateArgs& args)
{
    using namespace sassx;
    auto sel = openKernel(args.file, args.workspace);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    std::string arch = k.cubin().archName();
    if (!args.source && (!args.stalls.empty() || !args.variant.empty()))
        return fail("--stalls and --variant go with --source");
    auto map = kernelSourceMap(k);
    if (!map) return fail(map.message());
    std::string text;
    if (args.source) {
        auto summary = sourceSummary(args, k, *map);
        if (!summary) return fail(summary.message());
        text = std::move(*summary);
    } else {
        text = args.json ? annotationJson(k.analysis(), arch, &*map).dump(1) + "\n"
                         : annotationText(k.analysis(), arch, &*map);
    }
    if (args.out.empty()) {
        std::cout << text;
        return 0;
    }
    std::ofstream out(args.out, std::ios::binary);
    if (!out || !(out << text)) return fail("cannot write " + args.out);
    std::cerr << "annotated " << k.name() << " (" << arch << ", " << k.analysis().listing.instructions.size()
              << " instructions) -> " << args.out << "\n";
    return 0;
}

} // namespace

CliCommand addAnnotateCommand(CLI::App& root)
{
    auto args = std::make_shared<AnnotateArgs>();
    CLI::App* command = root.add_subcommand(
        "annotate", "the kernel's SASS listing, annotated with its analysis and source lines");
    command->add_option("FILE", args->file, "a cubin or anything `info` reads")->required();
    addWorkspaceOptions(*command, args->workspace);
    command->add_flag("--json", args->json, "JSON instead of text");
    command->add_option("-o", args->out, "write the listing to OUT instead of stdout")->type_name("OUT");
    command->add_flag("--source", args->source,
                      "one row per source line (from -lineinfo / Triton line tables) instead of the listing");
    command
        ->add_option("--stalls", args->stalls, "with --source: the original's stall samples, summed per line")
        ->type_name("JSON");
    command
        ->add_option("--variant", args->variant,
                     "with --source: a tuned cubin of the kernel; counts its changed instructions per line")
        ->type_name("CUBIN");
    return {command, [args] { return runAnnotate(*args); }};
}
