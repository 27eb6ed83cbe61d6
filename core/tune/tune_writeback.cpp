#include "core/tune/tune_writeback.h"

#include "core/common/read_file.h"
#include "core/session/schedule_exports.h"
#include "core/tune/tuned_manifest.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include <fstream>
#include <iterator>
#include <map>

namespace sassx::tune {

using nlohmann::json;

namespace {

// Each kernel's newest run.
Result<std::map<int64_t, DbRun>> latestRuns(TuneDb& db)
{
    auto runs = db.runs();
    if (!runs) return runs.error();
    std::map<int64_t, DbRun> latest;
    for (DbRun& r : *runs)
        latest[r.kernelId] = std::move(r);
    return latest;
}

// The note without a leading "unverified: " (the line says so already).
std::string verificationNote(const DbBest& best)
{
    const std::string prefix = "unverified: ";
    return best.verification.starts_with(prefix) ? best.verification.substr(prefix.size())
                                                 : best.verification;
}

// Why the run's best is not to be written back, or empty when it is.
std::string refusal(const DbRun& run, const std::optional<DbBest>& best)
{
    const KernelStatus status =
        kernelStatusOf(run.status, run.status == RunStatus::Running && TuneDb::ownerGone(run.owner));
    if (status == KernelStatus::Interrupted)
        return "its run was interrupted, not finished (the same tune command resumes it)";
    if (status != KernelStatus::Finished) return "its run is " + kernelStatusName(status) + ", not finished";
    if (!best || !best->improved) return "nothing clearly beat the original";
    if (!best->verified) return "its best is unverified (" + verificationNote(*best) + ")";
    if (!*best->verified) return "its best was WRONG on fresh inputs (" + best->verification + ")";
    return {};
}

// What a written-back best without a Triton cache entry is recorded as, so that --restore finds it.
constexpr const char* kTunedPrefix = "tuned:";

// The kernel's symbol from its spec (the capture's name may carry a _2 suffix).
std::string specSymbol(const DbKernel& k)
{
    auto bytes = readRegularFile(k.spec);
    if (!bytes) return k.name;
    const auto j = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
    return j.is_object() && j.value("kernel", json()).is_string() ? j["kernel"].get<std::string>() : k.name;
}

std::string tunedDirOf(const DbKernel& k)
{
    return (std::filesystem::path(k.spec).parent_path() / kTunedDir).string();
}

// A kernel without a Triton cache entry (captured at the driver, or its entry was not found): its best
// goes into the capture's tuned/ directory, which the driver hook runs in place of the original.
void writeBackTuned(TuneDb& db, const DbKernel& k, const DbRun& run, const DbBest& best, WriteBackLine& line)
{
    auto bytes = readRegularFile(best.cubin);
    if (!bytes || bytes->empty()) {
        line.failed = true;
        line.message = "cannot read its best cubin " + best.cubin;
        return;
    }
    const std::string dir = tunedDirOf(k);
    auto written = addTuned(dir, {k.name, specSymbol(k), k.cubin}, *bytes);
    if (!written) {
        line.failed = true;
        line.message = dir + ": " + written.message();
        return;
    }
    if (Status s = db.setWrittenBack(run.id, kTunedPrefix + dir); !s) {
        line.failed = true;
        line.message = s.message();
        return;
    }
    char gain[48];
    std::snprintf(gain, sizeof gain, "%.4fx: ", best.speedup);
    line.changed = true;
    line.message = gain + ("wrote " + *written + " (run it with `python -m sassx_capture run --tuned " + dir +
                           " -- PROGRAM`; the program's files are untouched)");
}

} // namespace

std::vector<WriteBackLine> writeBackBests(TuneDb& db)
{
    std::vector<WriteBackLine> lines;
    auto kernels = db.kernels();
    auto latest = kernels ? latestRuns(db) : Result<std::map<int64_t, DbRun>>(kernels.error());
    if (!latest) return {{"", false, true, latest.message()}};
    for (const DbKernel& k : *kernels) {
        WriteBackLine line{k.name, false, false, {}};
        const auto it = latest->find(k.id);
        if (it == latest->end()) continue; // skipped or never run: the report says so
        const DbRun& run = it->second;
        auto best = db.best(run.id);
        if (!best) {
            lines.push_back({k.name, false, true, best.message()});
            continue;
        }
        if (std::string why = refusal(run, *best); !why.empty()) {
            line.message = "not written: " + why;
        } else if (k.tritonEntries.empty()) {
            writeBackTuned(db, k, run, **best, line);
        } else {
            std::ifstream in((*best)->cubin, std::ios::binary);
            const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                             std::istreambuf_iterator<char>());
            if (!in || bytes.empty()) {
                line.failed = true;
                line.message = "cannot read its best cubin " + (*best)->cubin;
            }
            for (const std::string& entry : k.tritonEntries) {
                if (line.failed) break;
                auto written = writeBackToTriton(entry, bytes, "");
                if (!written) {
                    line.failed = true;
                    line.message = entry + ": " + written.message();
                    break;
                }
                line.changed = true;
                line.message = "wrote " + written->cubin + " (the original kept beside it)";
                if (Status s = db.setWrittenBack(run.id, entry); !s) {
                    line.failed = true;
                    line.message = s.message();
                }
            }
            if (line.changed && !line.failed) {
                char gain[48];
                std::snprintf(gain, sizeof gain, "%.4fx: ", (*best)->speedup);
                line.message = gain + line.message;
            }
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

std::vector<WriteBackLine> restoreBests(TuneDb& db)
{
    std::vector<WriteBackLine> lines;
    auto kernels = db.kernels();
    auto latest = kernels ? latestRuns(db) : Result<std::map<int64_t, DbRun>>(kernels.error());
    if (!latest) return {{"", false, true, latest.message()}};
    for (const DbKernel& k : *kernels) {
        const auto it = latest->find(k.id);
        if (it == latest->end()) continue;
        auto best = db.best(it->second.id);
        if (!best) {
            lines.push_back({k.name, false, true, best.message()});
            continue;
        }
        if (!*best || (*best)->writtenBack.empty()) {
            lines.push_back({k.name, false, false, "nothing to restore: no best was written back"});
            continue;
        }
        const std::string entry = (*best)->writtenBack;
        if (entry.starts_with(kTunedPrefix)) {
            const std::string dir = entry.substr(std::string(kTunedPrefix).size());
            Status s = removeTuned(dir, k.name);
            if (s) s = db.setWrittenBack(it->second.id, "");
            lines.push_back(
                {k.name, bool(s), !s,
                 s ? "removed its tuned cubin from " + dir + " (the original runs again)" : s.message()});
            continue;
        }
        if (Status s = restoreTriton(entry); !s) {
            lines.push_back({k.name, false, true, entry + ": " + s.message()});
            continue;
        }
        WriteBackLine line{k.name, true, false, "restored the original cubin in " + entry};
        if (Status s = db.setWrittenBack(it->second.id, ""); !s) {
            line.failed = true;
            line.message = s.message();
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

} // namespace sassx::tune
