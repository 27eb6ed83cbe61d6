#include "app/hook/hook_ledger.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace sassx::hook {

using nlohmann::json;

namespace {

constexpr size_t kDrainAt = 4096;      // pending launches before finished ones are read back
constexpr size_t kMaxPending = 200000; // past this the timer waits for the GPU (bounded memory)
constexpr size_t kMaxTimes = 1u << 20; // launch times kept per kernel; later launches are counted

void writeJson(const std::filesystem::path& path, const json& j)
{
    const auto tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp);
        // Library paths need not be UTF-8: replaced, never thrown on inside the user's program.
        out << j.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
}

} // namespace

std::string kernelKey(const std::string& imageSha256, const std::string& symbol)
{
    return imageSha256 + "/" + symbol;
}

KernelEntry* Ledger::entry(const ImagePtr& image, const std::string& symbol, const std::string& ranSha256)
{
    KernelEntry& e = m_entries[kernelKey(image->sha256, symbol) + "@" + ranSha256];
    if (!e.image) {
        e.image = image;
        e.symbol = symbol;
        e.ranSha256 = ranSha256;
    }
    return &e;
}

CUevent Ledger::event()
{
    if (!m_free.empty()) {
        CUevent e = m_free.back();
        m_free.pop_back();
        return e;
    }
    CUevent e = nullptr;
    return m_api.eventCreate(&e, CU_EVENT_DEFAULT) == CUDA_SUCCESS ? e : nullptr;
}

CUevent Ledger::begin(CUstream stream)
{
    CUevent e = event();
    if (e && m_api.eventRecord(e, stream) != CUDA_SUCCESS) return nullptr;
    return e;
}

void Ledger::end(KernelEntry* entry, CUevent start, CUstream stream)
{
    CUevent e = event();
    if (!e || m_api.eventRecord(e, stream) != CUDA_SUCCESS) {
        m_free.push_back(start);
        return;
    }
    m_pending.push_back({entry, start, e});
    if (m_pending.size() >= kMaxPending)
        drain(true);
    else if (m_pending.size() % kDrainAt == 0)
        drain(false);
}

void Ledger::drain(bool wait)
{
    while (!m_pending.empty()) {
        Pending& p = m_pending.front();
        if (wait)
            m_api.eventSynchronize(p.end);
        else if (m_api.eventQuery(p.end) != CUDA_SUCCESS)
            break; // launches finish in order per stream; the rest wait for the next drain
        float ms = 0.0f;
        if (m_api.eventElapsedTime(&ms, p.start, p.end) == CUDA_SUCCESS) {
            if (p.entry->timesUs.size() < kMaxTimes)
                p.entry->timesUs.push_back(ms * 1000.0f);
            else
                ++p.entry->timedDropped;
        }
        m_free.push_back(p.start);
        m_free.push_back(p.end);
        m_pending.pop_front();
    }
}

void Ledger::note(const std::string& problem)
{
    if (m_problems.size() < 50) m_problems.push_back(problem);
}

void Ledger::writeListing(const std::string& dir, const std::string& cupti, const ModuleRegistry& modules)
{
    json kernels = json::array(), images = json::array();
    for (const auto& [key, e] : m_entries) {
        double total = 0.0;
        for (float t : e.timesUs)
            total += t;
        kernels.push_back({{"key", kernelKey(e.image->sha256, e.symbol)},
                           {"symbol", e.symbol},
                           {"image_sha256", e.image->sha256},
                           {"ran_sha256", e.ranSha256},
                           {"launches", e.launches},
                           {"graph_captured_launches", e.graphCaptured},
                           {"timed_launches", int64_t(e.timesUs.size())},
                           {"gpu_time_us", total},
                           {"spec", e.spec.empty() ? json() : json(e.spec)},
                           {"skipped", e.skipped.empty() ? json() : json(e.skipped)}});
    }
    for (const ImagePtr& i : modules.all())
        images.push_back({{"sha256", i->sha256},
                          {"bytes", i->bytes.size()},
                          {"origin", std::string(enumName(inject::kOriginKindNames, i->origin.kind))},
                          {"library", i->origin.file},
                          {"closed_source", i->closedLibrary.empty() ? json() : json(i->closedLibrary)},
                          {"arch", i->cubin ? json(i->cubin->archName()) : json()},
                          {"problem", i->problem.empty() ? json() : json(i->problem)}});
    writeJson(std::filesystem::path(dir) / (std::to_string(getpid()) + ".driver.json"),
              {{"format", "sassx-driver-records"},
               {"version", 1},
               {"pid", getpid()},
               {"cupti", cupti},
               {"graph_launches", m_graphLaunches},
               {"runtime_inner_launches", m_runtimeInner.load()},
               {"problems", m_problems},
               {"images", images},
               {"kernels", kernels}});
}

void Ledger::writeTimes(const std::string& dir)
{
    json kernels = json::array();
    for (const auto& [key, e] : m_entries)
        kernels.push_back({{"hash", kernelKey(e.image->sha256, e.symbol)},
                           {"name", e.symbol},
                           {"cubin_sha256", e.ranSha256},
                           {"launches", e.launches},
                           {"times_us", e.timesUs}});
    // The launch timer's format (app/capture/sassx_capture/launch_timer.py), so one reader serves both.
    writeJson(std::filesystem::path(dir) / (std::to_string(getpid()) + ".driver.times.json"),
              {{"format", "sassx-capture-times"},
               {"version", 1},
               {"installed", true},
               {"graph_launches", m_graphLaunches},
               {"source", "driver hook"},
               {"kernels", kernels}});
}

} // namespace sassx::hook
