// sassx-cli triton-export ENTRY_DIR --cubin TUNED.cubin [--kernel K]
// sassx-cli triton-restore ENTRY_DIR
// Write-back into a Triton cache entry and its undo (docs/export.md).
#include "commands.h"
#include "core/rewrite/triton_cache.h"

#include <cstdio>
#include <fstream>
#include <iterator>

int runTritonExportCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args = parseArgs(raw, {{"--cubin", "--kernel"}, {}}, err);
    if (!err.empty() || args.positional.size() != 1 || !args.has("--cubin"))
        return fail(err.empty() ? "usage: sassx-cli triton-export ENTRY_DIR --cubin TUNED.cubin [--kernel K]"
                                : err);
    std::ifstream in(args.value("--cubin"), std::ios::binary);
    if (!in) return fail("cannot read " + args.value("--cubin"));
    std::vector<uint8_t> tuned((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto st = exportToTritonCache(args.positional[0], tuned, args.value("--kernel"));
    if (!st) return fail(st.message());
    auto entry = openTritonEntry(args.positional[0]);
    std::printf("wrote %s (original kept as %s); processes that already loaded the kernel must restart\n",
                entry ? entry->cubin.string().c_str() : args.positional[0].c_str(),
                entry ? entry->backup.filename().string().c_str() : "the backup");
    return 0;
}

int runTritonRestoreCommand(const Args& raw)
{
    using namespace sassx;
    std::string err;
    auto args = parseArgs(raw, {{}, {}}, err);
    if (!err.empty() || args.positional.size() != 1)
        return fail(err.empty() ? "usage: sassx-cli triton-restore ENTRY_DIR" : err);
    auto st = restoreTritonCache(args.positional[0]);
    if (!st) return fail(st.message());
    std::printf("restored the original cubin in %s\n", args.positional[0].c_str());
    return 0;
}
