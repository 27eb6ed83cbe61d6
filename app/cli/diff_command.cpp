// sassx-cli diff A B [--kernel K] [--format text|json|html] [--context N] [-o OUT]
// A and B are cubins (or anything loadInput takes) holding the same kernel; B may also be a variant
// JSON, applied to A's kernel. Exit 1 with the reason when the kernels are not two schedules of one.
#include "cli_workspace.h"
#include "commands.h"
#include "core/rewrite/diff_export.h"
#include "core/rewrite/schedule_diff.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace {

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

int runDiffCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args =
        parseArgs(raw, OptionSpec{{"--format", "--context", "-o"}, {}}.add(workspaceOptionSpec()), err);
    if (!err.empty() || args.positional.size() != 2)
        return fail(
            err.empty()
                ? "usage: sassx-cli diff A B [--kernel K] [--format text|json|html] [--context N] [-o OUT]"
                : err);
    const std::string format = args.value("--format", "text");
    if (format != "text" && format != "json" && format != "html")
        return fail("--format must be text, json or html");
    const std::string& pathA = args.positional[0];
    const std::string& pathB = args.positional[1];
    auto opened = openKernel(pathA, args);
    if (!opened) return fail(opened.message());
    const KernelWorkspace& a = *opened->kernel;
    const std::string labelA = std::filesystem::path(pathA).filename().string();
    const std::string labelB = std::filesystem::path(pathB).filename().string();

    DiffSide sideA = DiffSide::fromListing(a.analysis().listing, labelA);
    DiffSide sideB;
    if (endsWith(pathB, ".json")) {
        std::ifstream in(pathB);
        nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (j.is_discarded()) return fail(pathB + " is not valid JSON");
        auto v = Variant::fromJson(j);
        if (!v) return fail(v.message());
        if (!v->kernel.empty() && v->kernel != a.name())
            return fail("variant " + pathB + " is for kernel " + v->kernel + ", not " + a.name());
        auto s = a.schedule(v->edits);
        if (!s) return fail(s.message());
        sideB = DiffSide::fromSchedule(a.analysis(), *s, v->name.empty() ? labelB : v->name);
    } else {
        auto openedB = openKernel(pathB, args, a.name());
        if (!openedB) return fail(openedB.message());
        const KernelWorkspace& b = *openedB->kernel;
        const Kernel* ka = a.cubin().findKernel(a.name());
        const Kernel* kb = b.cubin().findKernel(b.name());
        if (ka && kb && ka->codeSize != kb->codeSize)
            return fail(a.name() + " is " + std::to_string(ka->codeSize) + " bytes in " + labelA + " but " +
                        std::to_string(kb->codeSize) + " in " + labelB + ": not two schedules of one kernel");
        sideB = DiffSide::fromListing(b.analysis().listing, labelB);
    }
    auto diff = diffSchedules(sideA, sideB, a.name());
    if (!diff) return fail(diff.message());

    std::string text;
    if (format == "json")
        text = diffToJson(*diff).dump(2) + "\n";
    else if (format == "html")
        text = diffToHtml(*diff);
    else {
        int context = 3;
        try {
            context = std::stoi(args.value("--context", "3"));
        } catch (const std::exception&) {
            return fail("--context takes a number (negative: the whole listing)");
        }
        text = diffToText(*diff, {.context = context});
    }
    if (args.has("-o")) {
        std::ofstream out(args.value("-o"), std::ios::binary);
        out << text;
        if (!out) return fail("cannot write " + args.value("-o"));
    } else {
        std::cout << text;
    }
    return 0;
}
