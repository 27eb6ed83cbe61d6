#include "core/inject/substitution_table.h"

#include "core/common/read_file.h"
#include "core/cubin/cubin.h"
#include "core/eval/sha256.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace sassx::inject {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string text(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool isSha256(const std::string& s)
{
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string layoutText(const Kernel& k)
{
    std::string s;
    for (const KernelParam& p : k.params)
        s += (s.empty() ? "" : " ") + std::to_string(p.offset) + ":" + std::to_string(p.size);
    return "[" + s + "]";
}

} // namespace

std::optional<std::string> substitutionProblem(const Cubin& original, const Cubin& tuned,
                                               const std::string& kernel, int deviceSm)
{
    const Kernel* o = original.findKernel(kernel);
    const Kernel* t = tuned.findKernel(kernel);
    if (!o) return "the loaded image holds no kernel " + kernel + " (another image of the same hash?)";
    if (!t) return "the tuned cubin holds no kernel " + kernel;
    if (original.archName() != tuned.archName())
        return "the tuned cubin is for " + tuned.archName() + ", the program loaded " + original.archName();
    if (deviceSm != 0 && tuned.smVersion() != 0 && tuned.smVersion() != deviceSm)
        return "the tuned cubin is for " + tuned.archName() + ", this GPU is sm_" + std::to_string(deviceSm);
    bool same = o->params.size() == t->params.size();
    for (size_t i = 0; same && i < o->params.size(); ++i)
        same = o->params[i].offset == t->params[i].offset && o->params[i].size == t->params[i].size;
    if (!same)
        return "the tuned kernel's parameters " + layoutText(*t) + " differ from the original's " +
               layoutText(*o);
    return std::nullopt;
}

Result<SubstitutionTable> SubstitutionTable::load(const std::string& dir)
{
    const std::string path = (fs::path(dir) / kTunedManifest).string();
    auto bytes = readRegularFile(path);
    if (!bytes) return makeError("--tuned " + dir + ": " + bytes.message());
    return fromManifest(std::string(bytes->begin(), bytes->end()), dir);
}

Result<SubstitutionTable> SubstitutionTable::fromManifest(const std::string& manifestText,
                                                          const std::string& dir)
{
    const std::string where = "--tuned " + dir + ": " + kTunedManifest;
    const json j = json::parse(manifestText, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return makeError(where + " is not JSON");
    if (text(j, "format") != kTunedFormat || !j.contains("version") || j["version"] != 1)
        return makeError(where + " is not a " + std::string(kTunedFormat) + " manifest of version 1");
    const json kernels = j.value("kernels", json());
    if (!kernels.is_array()) return makeError(where + " has no kernels list");
    SubstitutionTable table;
    for (size_t i = 0; i < kernels.size(); ++i) {
        const json& k = kernels[i];
        TunedEntry e{text(k, "image_sha256"), text(k, "kernel"), text(k, "cubin"), text(k, "cubin_sha256"),
                     text(k, "name")};
        if (!isSha256(e.imageSha256) || e.kernel.empty() || e.cubinPath.empty() || !isSha256(e.cubinSha256))
            return makeError(where + ": kernels[" + std::to_string(i) +
                             "] needs image_sha256, kernel, cubin and cubin_sha256");
        if (e.name.empty()) e.name = e.kernel;
        if (fs::path(e.cubinPath).is_relative()) e.cubinPath = (fs::path(dir) / e.cubinPath).string();
        const auto key = std::make_pair(e.imageSha256, e.kernel);
        if (table.m_byKey.count(key))
            return makeError(where + ": kernel " + e.kernel + " of image " + e.imageSha256.substr(0, 12) +
                             " is listed twice");
        table.m_byKey[key] = table.m_entries.size();
        table.m_entries.push_back(std::move(e));
    }
    return table;
}

bool SubstitutionTable::holdsImage(const std::string& imageSha256) const
{
    const auto it = m_byKey.lower_bound({imageSha256, std::string()});
    return it != m_byKey.end() && it->first.first == imageSha256;
}

void SubstitutionTable::say(const std::string& message)
{
    if (m_said.insert(message).second) m_pending.push_back(message);
}

std::vector<std::string> SubstitutionTable::takeMessages()
{
    return std::exchange(m_pending, {});
}

Substitution SubstitutionTable::decide(const std::string& imageSha256, std::span<const uint8_t> original,
                                       const std::string& kernel, int deviceSm)
{
    const auto key = std::make_pair(imageSha256, kernel);
    if (const auto it = m_decided.find(key); it != m_decided.end()) return it->second;
    Substitution s;
    const auto entry = m_byKey.find(key);
    if (entry == m_byKey.end()) return s; // not tuned: the original, silently
    const TunedEntry& e = m_entries[entry->second];
    auto refuse = [&](const std::string& why) {
        s.cubin.reset();
        s.reason = why;
        say("sassx: " + e.name + " runs its original: " + why);
        return m_decided[key] = s;
    };
    auto bytes = readRegularFile(e.cubinPath);
    if (!bytes) return refuse("cannot read the tuned cubin: " + bytes.message());
    if (eval::sha256Hex(bytes->data(), bytes->size()) != e.cubinSha256)
        return refuse("the tuned cubin " + e.cubinPath +
                      " is not the one the manifest names (SHA-256 differs: "
                      "truncated or replaced)");
    auto tuned = Cubin::parse(*bytes);
    if (!tuned) return refuse("the tuned cubin " + e.cubinPath + " does not parse: " + tuned.message());
    auto orig = Cubin::parse(std::vector<uint8_t>(original.begin(), original.end()));
    if (!orig) return refuse("the loaded image does not parse: " + orig.message());
    if (auto problem = substitutionProblem(*orig, *tuned, kernel, deviceSm)) return refuse(*problem);
    s.cubin = std::make_shared<const std::vector<uint8_t>>(std::move(*bytes));
    s.cubinSha256 = e.cubinSha256;
    return m_decided[key] = s;
}

} // namespace sassx::inject
