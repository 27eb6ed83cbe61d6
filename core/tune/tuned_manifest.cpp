#include "core/tune/tuned_manifest.h"

#include "core/common/atomic_file.h"
#include "core/common/read_file.h"
#include "core/eval/sha256.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace sassx::tune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kManifest = "manifest.json"; // inject::kTunedManifest, which the hook reads

Result<json> readManifest(const fs::path& dir)
{
    std::error_code ec;
    if (!fs::exists(dir / kManifest, ec))
        return json{{"format", "sassx-tuned"}, {"version", 1}, {"kernels", json::array()}};
    auto bytes = readRegularFile((dir / kManifest).string());
    if (!bytes) return bytes.error();
    json j = json::parse(bytes->begin(), bytes->end(), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.value("kernels", json()).is_array())
        return makeError((dir / kManifest).string() + ": not a sassx-tuned manifest");
    return j;
}

Status writeManifest(const fs::path& dir, const json& j)
{
    return writeFileAtomically((dir / kManifest).string(), j.dump(1) + "\n");
}

void dropEntry(json& j, const std::string& name)
{
    json kept = json::array();
    for (const json& k : j["kernels"])
        if (k.value("name", std::string()) != name) kept.push_back(k);
    j["kernels"] = kept;
}

} // namespace

Result<std::string> addTuned(const std::string& tunedDir, const TunedKernel& kernel,
                             const std::vector<uint8_t>& tuned)
{
    const fs::path dir(tunedDir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return makeError("cannot create " + tunedDir + ": " + ec.message());
    auto original = readRegularFile(kernel.originalCubin);
    if (!original) return makeError("the captured original: " + original.message());
    auto manifest = readManifest(dir);
    if (!manifest) return manifest.error();
    const std::string file = kernel.name + ".tuned.cubin";
    if (Status s =
            writeFileAtomically((dir / file).string(),
                                std::string_view(reinterpret_cast<const char*>(tuned.data()), tuned.size()));
        !s)
        return s.error();
    dropEntry(*manifest, kernel.name);
    (*manifest)["kernels"].push_back({{"name", kernel.name},
                                      {"kernel", kernel.symbol},
                                      {"image_sha256", eval::sha256Hex(original->data(), original->size())},
                                      {"cubin", file},
                                      {"cubin_sha256", eval::sha256Hex(tuned.data(), tuned.size())}});
    if (Status s = writeManifest(dir, *manifest); !s) return s.error();
    return (dir / file).string();
}

Status removeTuned(const std::string& tunedDir, const std::string& name)
{
    const fs::path dir(tunedDir);
    auto manifest = readManifest(dir);
    if (!manifest) return manifest.error();
    dropEntry(*manifest, name);
    if (Status s = writeManifest(dir, *manifest); !s) return s;
    std::error_code ec;
    fs::remove(dir / (name + ".tuned.cubin"), ec);
    return Ok{};
}

} // namespace sassx::tune
