#include "cli_workspace.h"
#include "commands.h"

#include "core/session/annotation_json.h"

#include <fstream>
#include <iostream>

int runAnnotateCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args = parseArgs(raw, OptionSpec{{"-o"}, {"--json"}}.add(workspaceOptionSpec()), err);
    if (!err.empty() || args.positional.size() != 1)
        return fail(err.empty() ? "usage: sassx-cli annotate FILE [--kernel K] [--json] [-o OUT]" : err);
    auto sel = openKernel(args.positional[0], args);
    if (!sel) return fail(sel.message());
    const KernelWorkspace& k = *sel->kernel;
    std::string arch = k.cubin().archName();
    std::string text = args.has("--json") ? annotationJson(k.analysis(), arch).dump(1) + "\n"
                                          : annotationText(k.analysis(), arch);
    std::string outPath = args.value("-o");
    if (outPath.empty()) {
        std::cout << text;
        return 0;
    }
    std::ofstream out(outPath, std::ios::binary);
    if (!out || !(out << text)) return fail("cannot write " + outPath);
    std::cerr << "annotated " << k.name() << " (" << arch << ", " << k.analysis().listing.instructions.size()
              << " instructions) -> " << outPath << "\n";
    return 0;
}
