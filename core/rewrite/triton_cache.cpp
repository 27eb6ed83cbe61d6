#include "core/rewrite/triton_cache.h"

#include "core/common/atomic_file.h"
#include "core/common/read_file.h"

#include <cstdio>
#include <fstream>
#include <string_view>

namespace sassx {

namespace fs = std::filesystem;

namespace {

Result<std::vector<uint8_t>> readFile(const fs::path& p)
{
    return readRegularFile(p.string());
}

} // namespace

bool TritonCacheEntry::hasBackup() const
{
    std::error_code ec;
    return fs::exists(backup, ec);
}

Result<TritonCacheEntry> openTritonEntry(const fs::path& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return makeError(dir.string() + " is not a directory (expected a Triton cache entry)");
    TritonCacheEntry e;
    e.dir = dir;
    // The metadata is the <name>.json whose "name" matches a <name>.cubin beside it; __grp__ files
    // only list the entry's files.
    for (const auto& f : fs::directory_iterator(dir, ec)) {
        const fs::path p = f.path();
        if (p.extension() != ".json" || p.filename().string().starts_with("__grp__")) continue;
        std::ifstream in(p);
        nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("name") || !j["name"].is_string()) continue;
        const std::string name = j["name"].get<std::string>();
        if (p.stem().string() != name || !fs::exists(dir / (name + ".cubin"), ec)) continue;
        e.name = name;
        e.meta = std::move(j);
        e.metadata = p;
        e.cubin = dir / (name + ".cubin");
        e.backup = dir / (name + ".cubin" + kTritonBackupSuffix);
        return e;
    }
    return makeError(dir.string() + " holds no Triton cache entry: expected <name>.json with \"name\" and "
                                    "<name>.cubin beside it");
}

std::optional<fs::path> tritonEntryOfFile(const fs::path& file)
{
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    auto entry = openTritonEntry(file.parent_path());
    if (!entry) return std::nullopt;
    const fs::path abs = fs::weakly_canonical(file, ec);
    for (const fs::path& p : {entry->cubin, entry->metadata})
        if (fs::weakly_canonical(p, ec) == abs) return entry->dir;
    return std::nullopt;
}

Status checkTunedCompatible(const Cubin& original, const Cubin& tuned, const std::string& kernel)
{
    const Kernel* a = original.findKernel(kernel);
    const Kernel* b = tuned.findKernel(kernel);
    if (!a) return makeError("the original cubin has no kernel " + kernel);
    if (!b)
        return makeError("the tuned cubin has no kernel " + kernel + " (is it a cubin of another kernel?)");
    if (original.smVersion() != tuned.smVersion() || original.archSuffixA() != tuned.archSuffixA())
        return makeError("the tuned cubin is for " + tuned.archName() + ", the cache entry's for " +
                         original.archName());
    if (a->codeSize != b->codeSize)
        return makeError(kernel + " has " + std::to_string(b->codeSize) +
                         " code bytes in the tuned cubin but " + std::to_string(a->codeSize) +
                         " in the cache entry: not a reordering of it");
    if (a->params.size() != b->params.size() || a->paramBankSize != b->paramBankSize)
        return makeError(kernel + " takes " + std::to_string(b->params.size()) +
                         " parameters in the tuned cubin, " + std::to_string(a->params.size()) +
                         " in the cache entry");
    for (size_t i = 0; i < a->params.size(); ++i) {
        const auto &p = a->params[i], &q = b->params[i];
        if (p.ordinal != q.ordinal || p.offset != q.offset || p.size != q.size)
            return makeError("parameter " + std::to_string(p.ordinal) + " of " + kernel + " is " +
                             std::to_string(q.size) + " bytes at offset " + std::to_string(q.offset) +
                             " in the tuned cubin but " + std::to_string(p.size) + " bytes at offset " +
                             std::to_string(p.offset) + " in the cache entry");
    }
    if (a->sharedMemStatic != b->sharedMemStatic)
        return makeError(kernel + " uses a different amount of static shared memory in the tuned cubin");
    return Ok{};
}

namespace {

// The cache entry's files are replaced through the one atomic writer, which follows a symbolic link to
// the file it names (a cache directory may link its cubin elsewhere) and writes a uniquely named sibling.
Status replaceFile(const fs::path& path, const std::vector<uint8_t>& bytes)
{
    return writeFileAtomically(path.string(),
                               std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

} // namespace

Status exportToTritonCache(const fs::path& dir, const std::vector<uint8_t>& tunedBytes,
                           const std::string& kernel)
{
    auto entry = openTritonEntry(dir);
    if (!entry) return entry.error();
    const std::string name = kernel.empty() ? entry->name : kernel;
    if (name != entry->name)
        return makeError("the cache entry holds kernel " + entry->name + ", not " + name);
    // The reference is the original: the backup when an earlier export already replaced the cubin.
    auto originalBytes = readFile(entry->hasBackup() ? entry->backup : entry->cubin);
    if (!originalBytes) return originalBytes.error();
    const std::vector<uint8_t> keep = *originalBytes;
    auto original = Cubin::parse(std::move(*originalBytes));
    if (!original) return makeError("the cache entry's cubin does not parse: " + original.message());
    auto tuned = Cubin::parse(tunedBytes);
    if (!tuned) return makeError("the tuned cubin does not parse: " + tuned.message());
    if (auto st = checkTunedCompatible(*original, *tuned, name); !st) return st;
    if (entry->meta.contains("target") && entry->meta["target"].is_object() &&
        entry->meta["target"].contains("arch") && entry->meta["target"]["arch"].is_number_integer() &&
        entry->meta["target"]["arch"].get<int>() != tuned->smVersion())
        return makeError("the entry's metadata targets sm_" +
                         std::to_string(entry->meta["target"]["arch"].get<int>()) + ", the tuned cubin " +
                         tuned->archName());
    if (!entry->hasBackup())
        if (auto st = replaceFile(entry->backup, keep); !st) return st;
    return replaceFile(entry->cubin, tunedBytes);
}

Status restoreTritonCache(const fs::path& dir)
{
    auto entry = openTritonEntry(dir);
    if (!entry) return entry.error();
    if (!entry->hasBackup())
        return makeError("no backup " + entry->backup.filename().string() + " in " + dir.string() +
                         ": nothing to restore (the cubin there is the one Triton wrote)");
    auto bytes = readFile(entry->backup);
    if (!bytes) return bytes.error();
    if (auto st = replaceFile(entry->cubin, *bytes); !st) return st;
    std::error_code ec;
    fs::remove(entry->backup, ec);
    if (ec)
        return makeError("restored " + entry->cubin.string() +
                         " but could not remove the backup: " + ec.message());
    return Ok{};
}

} // namespace sassx
