#include "core/tune/tune_plan.h"

#include "core/eval/launch_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

namespace sassx::tune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kCaptureVersion = 1;

// A field of a hand-written or truncated file, or the fallback when it is missing or of another type
// (json::value would throw on the wrong type).
std::string text(const json& j, const char* key, const std::string& fallback = {})
{
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

double number(const json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

// The spec at `specPath` as a kernel of the plan, or why it cannot be one.
Result<TuneKernel> kernelFromSpec(const std::string& name, const fs::path& specPath)
{
    std::error_code ec;
    if (!fs::is_regular_file(specPath, ec)) return makeError("its spec " + specPath.string() + " is missing");
    auto spec = eval::loadLaunchSpec(specPath.string());
    if (!spec) return spec.error();
    TuneKernel k;
    k.name = name;
    k.specPath = fs::absolute(specPath, ec).lexically_normal().string();
    k.cubinPath = spec->cubinPath();
    if (k.cubinPath.empty()) return makeError("its spec names no \"cubin\"");
    if (!fs::is_regular_file(k.cubinPath, ec))
        return makeError("its cubin " + fs::path(k.cubinPath).filename().string() + " is missing beside " +
                         specPath.filename().string());
    // The "triton" block is informational for the evaluator (docs/launch-spec.md); write-back reads it.
    std::ifstream in(specPath);
    const json j = json::parse(in, nullptr, false);
    if (j.is_object() && j.contains("triton") && j["triton"].is_object()) {
        const json& entries =
            j["triton"].contains("cache_entries") ? j["triton"]["cache_entries"] : json::array();
        if (entries.is_array())
            for (const json& e : entries)
                if (e.is_string() && !e.get<std::string>().empty())
                    k.tritonEntries.push_back((fs::path(tritonCacheRoot()) / e.get<std::string>()).string());
    }
    return k;
}

Result<TunePlan> planFromSpecs(TunePlan plan)
{
    std::vector<fs::path> specs;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(plan.dir, ec)) {
        const std::string file = entry.path().filename().string();
        if (file.size() > 12 && file.ends_with(".launch.json")) specs.push_back(entry.path());
    }
    if (ec) return makeError("cannot list " + plan.dir + ": " + ec.message());
    std::sort(specs.begin(), specs.end());
    for (const fs::path& spec : specs) {
        const std::string file = spec.filename().string();
        const std::string name = file.substr(0, file.size() - std::string(".launch.json").size());
        auto k = kernelFromSpec(name, spec);
        if (k)
            plan.kernels.push_back(std::move(*k));
        else
            plan.skipped.push_back({name, k.message()});
    }
    for (TuneKernel& k : plan.kernels)
        k.timeShare = 1.0 / double(plan.kernels.size());
    plan.sharesNote = "equal shares: no capture";
    return plan;
}

Result<TunePlan> planFromCapture(TunePlan plan, const fs::path& capturePath)
{
    std::ifstream in(capturePath);
    const json j = json::parse(in, nullptr, false);
    const std::string where = capturePath.string();
    if (j.is_discarded() || !j.is_object()) return makeError(where + " is not JSON");
    if (text(j, "format") != "sassx-capture")
        return makeError(where + " is not a sassx capture (no \"format\": \"sassx-capture\")");
    if (!j.contains("version") || !j["version"].is_number_integer() ||
        j["version"].get<int>() != kCaptureVersion)
        return makeError(where + " is capture version " +
                         (j.contains("version") ? j["version"].dump() : "?") + "; this sassx reads version " +
                         std::to_string(kCaptureVersion));
    if (!j.contains("kernels") || !j["kernels"].is_array())
        return makeError(where + " has no \"kernels\" list");
    if (j.contains("program") && j["program"].is_array())
        for (const json& a : j["program"])
            if (a.is_string()) plan.program.push_back(a.get<std::string>());
    plan.device = text(j, "device");
    plan.date = text(j, "date");
    plan.totalGpuTimeUs = number(j, "total_gpu_time_us");
    std::set<std::string> seen;
    for (const json& e : j["kernels"]) {
        const std::string name = text(e, "name");
        if (name.empty()) {
            plan.skipped.push_back({"?", "a \"kernels\" entry without a \"name\""});
            continue;
        }
        // The name becomes a directory of RUNS_DIR: nothing that leaves it.
        if (name == "." || name == ".." || name.find('/') != std::string::npos ||
            name.find('\0') != std::string::npos) {
            plan.skipped.push_back({name, "its name is not a plain file name"});
            continue;
        }
        if (!seen.insert(name).second) {
            plan.skipped.push_back({name, "listed twice in capture.json"});
            continue;
        }
        const std::string spec = text(e, "spec");
        if (spec.empty()) {
            plan.skipped.push_back({name, "no \"spec\" in capture.json"});
            continue;
        }
        auto k = kernelFromSpec(name, fs::path(plan.dir) / spec);
        if (!k) {
            plan.skipped.push_back({name, k.message()});
            continue;
        }
        k->timeShare = std::max(0.0, number(e, "time_share"));
        k->gpuTimeUs = number(e, "gpu_time_us");
        k->launches = int64_t(number(e, "launches"));
        const std::string entry = text(e, "triton_cache_dir");
        if (!entry.empty()) k->tritonEntries = {entry};
        plan.kernels.push_back(std::move(*k));
    }
    if (j.contains("skipped") && j["skipped"].is_array())
        for (const json& s : j["skipped"])
            if (s.is_object()) plan.skipped.push_back({text(s, "name", "?"), text(s, "reason")});
    plan.sharesNote = "time shares from the capture";
    return plan;
}

} // namespace

std::string tritonCacheRoot()
{
    if (const char* dir = std::getenv("TRITON_CACHE_DIR"); dir && *dir) return dir;
    const char* home = std::getenv("HOME");
    return (fs::path(home && *home ? home : "/") / ".triton" / "cache").string();
}

Result<TunePlan> discoverPlan(const std::string& dir)
{
    std::error_code ec;
    if (!fs::exists(dir, ec)) return makeError(dir + " does not exist");
    if (!fs::is_directory(dir, ec))
        return makeError(dir + " is not a directory (tune takes a capture or a directory of launch specs)");
    TunePlan plan;
    plan.dir = fs::absolute(dir, ec).lexically_normal().string();
    if (ec) return makeError("cannot resolve " + dir + ": " + ec.message());
    if (plan.dir.size() > 1 && plan.dir.back() == '/') plan.dir.pop_back();
    const fs::path capture = fs::path(plan.dir) / "capture.json";
    if (fs::exists(capture, ec)) {
        plan.fromCapture = true;
        return planFromCapture(std::move(plan), capture);
    }
    return planFromSpecs(std::move(plan));
}

Status selectKernels(TunePlan& plan, const std::vector<std::string>& names)
{
    if (names.empty()) return Ok{};
    for (const std::string& n : names) {
        const bool known = std::any_of(plan.kernels.begin(), plan.kernels.end(),
                                       [&](const TuneKernel& k) { return k.name == n; });
        if (known) continue;
        for (const SkippedKernel& s : plan.skipped)
            if (s.name == n) return makeError("kernel '" + n + "' cannot be tuned: " + s.reason);
        return makeError("no kernel '" + n + "' in " + plan.dir);
    }
    std::erase_if(plan.kernels, [&](const TuneKernel& k) {
        return std::find(names.begin(), names.end(), k.name) == names.end();
    });
    return Ok{};
}

std::vector<double> splitBudget(const TunePlan& plan, double totalSeconds)
{
    const size_t n = plan.kernels.size();
    std::vector<double> out(n, 0.0);
    if (n == 0 || totalSeconds <= 0) return out;
    const double floor = totalSeconds / double(n) / 4.0;
    const double rest = totalSeconds - floor * double(n);
    const double shares = std::accumulate(plan.kernels.begin(), plan.kernels.end(), 0.0,
                                          [](double s, const TuneKernel& k) { return s + k.timeShare; });
    for (size_t i = 0; i < n; ++i)
        out[i] = floor + (shares > 0 ? rest * plan.kernels[i].timeShare / shares : rest / double(n));
    return out;
}

} // namespace sassx::tune
