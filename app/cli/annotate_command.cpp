#include "cli_workspace.h"
#include "commands.h"

#include "core/session/annotation_json.h"

#include <fstream>
#include <iostream>
#include <memory>

namespace {

struct AnnotateArgs
{
    std::string file;
    WorkspaceArgs workspace;
    bool json = false;
    std::string out; // empty: stdout
};

int runAnnotate(const AnnotateArgs& args)
{
    using namespace sassx;
    auto sel = openKernel(args.file, args.workspace);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    std::string arch = k.cubin().archName();
    std::string text =
        args.json ? annotationJson(k.analysis(), arch).dump(1) + "\n" : annotationText(k.analysis(), arch);
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
    CLI::App* command =
        root.add_subcommand("annotate", "the kernel's SASS listing, annotated with its analysis");
    command->add_option("FILE", args->file, "a cubin or anything `info` reads")->required();
    addWorkspaceOptions(*command, args->workspace);
    command->add_flag("--json", args->json, "JSON instead of text");
    command->add_option("-o", args->out, "write the listing to OUT instead of stdout")->type_name("OUT");
    return {command, [args] { return runAnnotate(*args); }};
}
