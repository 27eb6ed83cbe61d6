// sassx-cli diff A B [--kernel K] [--format text|json|html] [--context N] [-o OUT]
// A and B are cubins (or anything loadInput takes) holding the same kernel; B may also be a variant
// JSON, applied to A's kernel. Exit 1 with the reason when the kernels are not two schedules of one.
// A's checker judges each of B's differences (variant_import.h): the output says which it would refuse
// and why, whatever tool made B; a refusal does not change the exit status.
#include "cli_options.h"
#include "cli_workspace.h"
#include "commands.h"
#include "core/session/schedule_exports.h"
#include "core/session/variant_import.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace {

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
    auto opened = openKernel(args.a, args.workspace);
    if (!opened) return fail(opened.message());
    const std::string labelA = std::filesystem::path(args.a).filename().string();
    auto diff = diffInputs(*opened->kernel, labelA, args.b, workspaceOptions(args.workspace));
    if (!diff) return fail(diff.message());
    const DiffFormat format = args.format == "json"   ? DiffFormat::Json
                              : args.format == "html" ? DiffFormat::Html
                                                      : DiffFormat::Text;
    const CheckerVerdict checker = judgeInput(*opened->kernel, args.b, workspaceOptions(args.workspace));
    const std::string text = renderDiff(*diff, format, args.context, &checker);
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
    CLI::App* command =
        root.add_subcommand("diff", "two schedules of one kernel, side by side, with the checker's verdict");
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
