#include "core/eval/ncu_metrics.h"

#include "core/common/paths.h"
#include "core/common/subprocess.h"
#include "core/eval/oneshot_files.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace sassx::eval {

namespace fs = std::filesystem;

std::string findNcu()
{
    if (const char* e = std::getenv("SASSX_NCU"); e && *e && fs::exists(e)) return e;
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty() && fs::exists(fs::path(dir) / "ncu")) return (fs::path(dir) / "ncu").string();
    }
    for (const char* p : {"/usr/local/cuda/bin/ncu", "/usr/local/cuda/nsight-compute/ncu"})
        if (fs::exists(p)) return p;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/opt/nvidia/nsight-compute", ec))
        if (fs::exists(e.path() / "ncu")) return (e.path() / "ncu").string();
    return {};
}

std::vector<std::string> defaultMetrics()
{
    std::vector<std::string> names;
    std::ifstream in(resourcesDir() / "metrics" / "nsight.json");
    if (in) {
        nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (j.is_object() && j.contains("metrics") && j.at("metrics").is_array())
            for (const auto& m : j.at("metrics"))
                if (m.is_object() && m.contains("name")) names.push_back(m.at("name").get<std::string>());
    }
    if (names.empty())
        names = {"gpu__time_duration.sum",
                 "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                 "lts__throughput.avg.pct_of_peak_sustained_elapsed",
                 "l1tex__throughput.avg.pct_of_peak_sustained_active",
                 "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                 "lts__t_sector_hit_rate.pct",
                 "l1tex__t_sector_hit_rate.pct",
                 "dram__bytes_read.sum",
                 "dram__bytes_write.sum",
                 "sm__warps_active.avg.pct_of_peak_sustained_active"};
    return names;
}

namespace {
// Splits one CSV line with double-quoted fields.
std::vector<std::string> splitCsv(const std::string& line)
{
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(cur);
            cur.clear();
        } else if (c != '\r') {
            cur += c;
        }
    }
    fields.push_back(cur);
    return fields;
}
} // namespace

Result<std::vector<MetricValue>> parseNcuCsv(const std::string& csv, const FigureSource& source)
{
    std::stringstream ss(csv);
    std::string line;
    int colName = -1, colUnit = -1, colValue = -1, colId = -1;
    std::string firstId;
    std::vector<MetricValue> out;
    while (std::getline(ss, line)) {
        if (line.empty() || line[0] != '"') continue; // ==PROF== and program output
        const auto f = splitCsv(line);
        if (colName < 0) {
            for (size_t i = 0; i < f.size(); ++i) {
                if (f[i] == "Metric Name") colName = int(i);
                if (f[i] == "Metric Unit") colUnit = int(i);
                if (f[i] == "Metric Value") colValue = int(i);
                if (f[i] == "ID") colId = int(i);
            }
            continue;
        }
        if (int(f.size()) <= std::max({colName, colUnit, colValue})) continue;
        if (colId >= 0) {
            if (firstId.empty()) firstId = f[size_t(colId)];
            if (f[size_t(colId)] != firstId) continue; // only the first profiled launch
        }
        std::string v = f[size_t(colValue)];
        std::string digits;
        for (char c : v)
            if (c != ',') digits += c; // thousands separators
        char* end = nullptr;
        const double value = std::strtod(digits.c_str(), &end);
        if (digits.empty() || (end && *end)) continue; // "n/a" and friends
        MetricValue m;
        m.name = f[size_t(colName)];
        m.unit = colUnit >= 0 ? f[size_t(colUnit)] : std::string();
        m.value = value;
        m.source = source;
        out.push_back(m);
    }
    if (colName < 0) return makeError("ncu printed no CSV metrics table");
    if (out.empty()) return makeError("ncu profiled no kernel (was it launched? is the name filter right?)");
    return out;
}

Result<std::vector<MetricValue>> collectWithNcu(const NcuRequest& r)
{
    if (r.ncu.empty()) return makeError("ncu not found (set SASSX_NCU or put Nsight Compute on PATH)");
    auto files = OneshotFiles::create(r.spec, r.cubin);
    if (!files) return files.error();
    std::string list;
    for (const auto& m : r.metrics)
        list += (list.empty() ? "" : ",") + m;
    Subprocess::Options o;
    // --clock-control none: measure at the clocks the timing rounds see, not ncu's locked base clock.
    o.argv = {r.ncu,
              "--csv",
              "--print-units",
              "base",
              "--clock-control",
              "none",
              "--kernel-name-base",
              "mangled",
              "--kernel-name",
              r.spec.kernel,
              "--launch-count",
              "1",
              "--metrics",
              list,
              r.runner,
              "--oneshot",
              files.value()->specPath(),
              files.value()->cubinPath(),
              std::to_string(r.seed)};
    auto out = runProcess(o, r.timeout);
    if (!out) return out.error();
    FigureSource source{r.device, FigureKind::Ncu};
    auto parsed = parseNcuCsv(out->out, source);
    if (!parsed)
        return makeError(parsed.message() + " (ncu " + out->exit.text() + "; stderr: " +
                         out->err.substr(0, 600) + "; stdout: " + out->out.substr(0, 600) + ")");
    return parsed;
}

} // namespace sassx::eval
