#include "commands.h"
#include "kernel_selection.h"

#include "core/session/annotation_json.h"

#include <fstream>
#include <iostream>

int runAnnotateCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args = parseArgs(raw, {"--kernel", "-o", "--arch"}, err);
    if (!err.empty() || args.positional.size() != 1)
        return fail(err.empty() ? "usage: sassx-cli annotate FILE [--kernel K] [--json] [-o OUT]" : err);
    auto sel = selectKernel(args.positional[0], args.value("--kernel"), args.value("--arch", "sm_90"));
    if (!sel) return fail(sel.message());
    std::string arch = sel->cubin().archName();
    std::string text = args.has("--json") ? annotationJson(*sel->analysis, arch).dump(1) + "\n"
                                          : annotationText(*sel->analysis, arch);
    std::string outPath = args.value("-o");
    if (outPath.empty()) {
        std::cout << text;
        return 0;
    }
    std::ofstream out(outPath, std::ios::binary);
    if (!out || !(out << text)) return fail("cannot write " + outPath);
    std::cerr << "annotated " << sel->kernel << " (" << arch << ", "
              << sel->analysis->listing.instructions.size() << " instructions) -> " << outPath << "\n";
    return 0;
}
