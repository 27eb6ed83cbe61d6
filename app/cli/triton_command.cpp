// sassx-cli triton-export ENTRY_DIR --cubin TUNED.cubin [--kernel K]
// sassx-cli triton-restore ENTRY_DIR
// Write-back into a Triton cache entry and its undo (docs/export.md).
#include "commands.h"
#include "core/common/read_file.h"
#include "core/session/schedule_exports.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

namespace {

struct TritonExportArgs
{
    std::string entry;
    std::string cubin;
    std::string kernel;
};

int runTritonExport(const TritonExportArgs& args)
{
    using namespace sassx;
    auto tuned = readRegularFile(args.cubin);
    if (!tuned) return fail("cannot read the tuned cubin " + tuned.message());
    auto written = writeBackToTriton(args.entry, *tuned, args.kernel);
    if (!written) return fail(written.message());
    std::printf("wrote %s (original kept as %s); processes that already loaded the kernel must restart\n",
                written->cubin.c_str(), std::filesystem::path(written->backup).filename().string().c_str());
    return 0;
}

int runTritonRestore(const std::string& entry)
{
    auto st = sassx::restoreTriton(entry);
    if (!st) return fail(st.message());
    std::printf("restored the original cubin in %s\n", entry.c_str());
    return 0;
}

} // namespace

CliCommand addTritonExportCommand(CLI::App& root)
{
    auto args = std::make_shared<TritonExportArgs>();
    CLI::App* command = root.add_subcommand(
        "triton-export", "put a tuned cubin into a Triton cache entry (the original kept)");
    command->add_option("ENTRY_DIR", args->entry, "the Triton cache entry")->required();
    command->add_option("--cubin", args->cubin, "the tuned cubin")->type_name("TUNED.cubin")->required();
    command->add_option("--kernel", args->kernel, "the kernel (default: the one the entry's metadata names)")
        ->type_name("K");
    return {command, [args] { return runTritonExport(*args); }};
}

CliCommand addTritonRestoreCommand(CLI::App& root)
{
    auto entry = std::make_shared<std::string>();
    CLI::App* command =
        root.add_subcommand("triton-restore", "put the original cubin back into a Triton cache entry");
    command->add_option("ENTRY_DIR", *entry, "the Triton cache entry")->required();
    return {command, [entry] { return runTritonRestore(*entry); }};
}
