// sassx-cli diff A B [--kernel K] [--format text|json|html] [--context N] [-o OUT]
// A and B are cubins (or anything loadInput takes) holding the same kernel; B may also be a variant
// JSON, applied to A's kernel. Exit 1 with the reason when the kernels are not two schedules of one.
#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"
#include "core/rewrite/diff_export.h"
#include "core/rewrite/schedule_diff.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace {

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct DiffArgs
{
    std::string a, b;
    WorkspaceArgs workspace;
    std::string format = "text";
    int context = 3; // negative: the whole listing
    std::string out; // empty: stdout
};

int runDiff(const DiffArgs& args)
{
    using namespace sassx;
    const std::string& pathA = args.a;
    const std::string& pathB = args.b;
    auto opened = openKernel(pathA, args.workspace);
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
        auto openedB = openKernel(pathB, args.workspace, a.name());
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

    const std::string text = args.format == "json"   ? diffToJson(*diff).dump(2) + "\n"
                             : args.format == "html" ? diffToHtml(*diff)
                                                     : diffToText(*diff, {.context = args.context});
    if (!args.out.empty()) {
        std::ofstream out(args.out, std::ios::binary);
        out << text;
        if (!out) return fail("cannot write " + args.out);
    } else {
        std::cout << text;
    }
    return 0;
}

} // namespace

CliCommand addDiffCommand(CLI::App& root)
{
    auto args = std::make_shared<DiffArgs>();
    CLI::App* command = root.add_subcommand("diff", "two schedules of one kernel, side by side");
    command->add_option("A", args->a, "a cubin (or anything `info` reads)")->required();
    command->add_option("B", args->b, "another cubin with the same kernel, or a variant JSON applied to A's")
        ->required();
    addWorkspaceOptions(*command, args->workspace);
    command->add_option("--format", args->format, "the output's form")
        ->check(oneOf({"text", "json", "html"}))
        ->capture_default_str();
    command->add_option("--context", args->context, "text: unchanged lines around a change (negative: all)")
        ->capture_default_str();
    command->add_option("-o", args->out, "write the diff to OUT instead of stdout")->type_name("OUT");
    return {command, [args] { return runDiff(*args); }};
}
