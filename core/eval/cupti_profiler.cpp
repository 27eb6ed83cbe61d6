#include "core/eval/cupti_profiler.h"

#include "core/common/subprocess.h"
#include "core/eval/cupti_abi.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>

namespace sassx::eval {

namespace fs = std::filesystem;

namespace {

struct Api
{
    using Fn = cupti::Result (*)(void*);
    cupti::Result (*getResultString)(cupti::Result, const char**) = nullptr;
    Fn profilerInitialize = nullptr;
    Fn deviceGetChipName = nullptr;
    Fn getCounterAvailability = nullptr;
    Fn hostInitialize = nullptr;
    Fn hostDeinitialize = nullptr;
    Fn hostGetMetricProperties = nullptr;
    Fn hostConfigAddMetrics = nullptr;
    Fn hostGetConfigImageSize = nullptr;
    Fn hostGetConfigImage = nullptr;
    Fn hostGetNumOfPasses = nullptr;
    Fn hostEvaluateToGpuValues = nullptr;
    Fn rangeEnable = nullptr;
    Fn rangeDisable = nullptr;
    Fn rangeGetCounterDataSize = nullptr;
    Fn rangeCounterDataImageInitialize = nullptr;
    Fn rangeSetConfig = nullptr;
    Fn rangeStart = nullptr;
    Fn rangeStop = nullptr;
    Fn rangeDecodeData = nullptr;
    Fn rangeGetCounterDataInfo = nullptr;

    std::string describe(cupti::Result r) const
    {
        const char* text = nullptr;
        if (getResultString) getResultString(r, &text);
        std::string s = text ? text : "CUPTI error";
        s += " (" + std::to_string(r) + ")";
        if (r == cupti::kErrorInsufficientPrivileges)
            s += "; profiling needs access to GPU performance counters "
                 "(NVreg_RestrictProfilingToAdminUsers=0, "
                 "or run as root)";
        return s;
    }
};

std::vector<std::string> wheelDirs()
{
    std::vector<std::string> dirs;
    if (const char* e = std::getenv("SASSX_CUPTI_WHEEL_DIR"); e && *e) dirs.push_back(e);
    Subprocess::Options o;
    o.argv = {"python3", "-c",
              "import site,sys;print('\\n'.join(site.getsitepackages()+[site.getusersitepackages()]))"};
    if (auto out = runProcess(o, std::chrono::milliseconds(5000)); out && out->ok()) {
        std::stringstream ss(out->out);
        std::string line;
        while (std::getline(ss, line))
            if (!line.empty()) {
                // cu13 wheels put every library under nvidia/cu13/lib, cu12 ones under nvidia/cuda_cupti/lib.
                dirs.push_back(line + "/nvidia/cu13/lib");
                dirs.push_back(line + "/nvidia/cuda_cupti/lib");
            }
    }
    return dirs;
}

void addLibrariesIn(const fs::path& dir, std::vector<std::string>& out)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("libcupti.so", 0) == 0) found.push_back(e.path().string());
    }
    std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() > b.size() : a > b; // libcupti.so.13 before libcupti.so
    });
    out.insert(out.end(), found.begin(), found.end());
}

std::mutex g_loadMutex;
std::optional<Result<CuptiLibrary>> g_loaded;
Api g_api;

template <class F> bool bind(void* lib, F& fn, const char* name, std::string& missing)
{
    fn = reinterpret_cast<F>(dlsym(lib, name));
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
    return fn != nullptr;
}

Result<CuptiLibrary> doLoad()
{
    auto opened = openCuptiLibrary();
    if (!opened) return opened.error();
    void* lib = opened->first;
    const std::string path = opened->second;
    CuptiLibrary info;
    info.path = path;
    Api& a = g_api;
    bind(lib, a.getResultString, "cuptiGetResultString", info.missing);
    bind(lib, a.profilerInitialize, "cuptiProfilerInitialize", info.missing);
    bind(lib, a.deviceGetChipName, "cuptiDeviceGetChipName", info.missing);
    bind(lib, a.getCounterAvailability, "cuptiProfilerGetCounterAvailability", info.missing);
    bind(lib, a.hostInitialize, "cuptiProfilerHostInitialize", info.missing);
    bind(lib, a.hostDeinitialize, "cuptiProfilerHostDeinitialize", info.missing);
    bind(lib, a.hostGetMetricProperties, "cuptiProfilerHostGetMetricProperties", info.missing);
    bind(lib, a.hostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics", info.missing);
    bind(lib, a.hostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize", info.missing);
    bind(lib, a.hostGetConfigImage, "cuptiProfilerHostGetConfigImage", info.missing);
    bind(lib, a.hostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses", info.missing);
    bind(lib, a.hostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues", info.missing);
    bind(lib, a.rangeEnable, "cuptiRangeProfilerEnable", info.missing);
    bind(lib, a.rangeDisable, "cuptiRangeProfilerDisable", info.missing);
    bind(lib, a.rangeGetCounterDataSize, "cuptiRangeProfilerGetCounterDataSize", info.missing);
    bind(lib, a.rangeCounterDataImageInitialize, "cuptiRangeProfilerCounterDataImageInitialize",
         info.missing);
    bind(lib, a.rangeSetConfig, "cuptiRangeProfilerSetConfig", info.missing);
    bind(lib, a.rangeStart, "cuptiRangeProfilerStart", info.missing);
    bind(lib, a.rangeStop, "cuptiRangeProfilerStop", info.missing);
    bind(lib, a.rangeDecodeData, "cuptiRangeProfilerDecodeData", info.missing);
    bind(lib, a.rangeGetCounterDataInfo, "cuptiRangeProfilerGetCounterDataInfo", info.missing);
    return info;
}

// Owns the CUPTI objects of one profiling run so every exit path releases them.
class Run
{
public:
    explicit Run(const Api& api) : m_api(api) {}
    ~Run()
    {
        if (m_range) {
            cupti::RangeObjectParams p{cupti::kRangeObjectSize, nullptr, m_range};
            m_api.rangeDisable(&p);
        }
        if (m_host) {
            cupti::HostDeinitializeParams p{cupti::kHostDeinitializeSize, nullptr, m_host};
            m_api.hostDeinitialize(&p);
        }
    }
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

    Status call(Api::Fn fn, void* params, const char* what)
    {
        const cupti::Result r = fn(params);
        if (r != cupti::kSuccess) return makeError(std::string(what) + ": " + m_api.describe(r));
        return Ok{};
    }

    const Api& m_api;
    cupti::HostObject* m_host = nullptr;
    cupti::RangeProfilerObject* m_range = nullptr;
};

#define SASSX_TRY(expr)                                                                                      \
    do {                                                                                                     \
        if (Status s_ = (expr); !s_) return s_.error();                                                      \
    } while (0)

} // namespace

Result<std::pair<void*, std::string>> openCuptiLibrary()
{
    std::string tried;
    for (const std::string& candidate : cuptiSearchList()) {
        if (void* lib = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))
            return std::make_pair(lib, candidate);
        const char* why = dlerror();
        tried += "\n  " + candidate + (why ? std::string(": ") + why : std::string());
    }
    return makeError(
        "CUPTI not found (set SASSX_CUPTI to libcupti.so, or install the CUDA toolkit's CUPTI or "
        "the nvidia-cuda-cupti wheel); tried:" +
        tried);
}

std::vector<std::string> cuptiSearchList()
{
    std::vector<std::string> out;
    // An explicit choice is the only candidate: silently loading another CUPTI would hide a mistake.
    if (const char* e = std::getenv("SASSX_CUPTI"); e && *e) return {e};
    std::vector<fs::path> roots;
    if (const char* e = std::getenv("CUDA_HOME"); e && *e) roots.push_back(e);
    if (const char* e = std::getenv("CUDA_PATH"); e && *e) roots.push_back(e);
    roots.push_back("/usr/local/cuda");
    for (const fs::path& root : roots)
        for (const char* sub : {"extras/CUPTI/lib64", "lib64", "lib", "targets/x86_64-linux/lib"})
            addLibrariesIn(root / sub, out);
    for (const std::string& dir : wheelDirs())
        addLibrariesIn(dir, out);
    for (const char* soname : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"})
        out.push_back(soname);
    return out;
}

Result<CuptiLibrary> loadCupti()
{
    std::lock_guard lock(g_loadMutex);
    if (!g_loaded) g_loaded = doLoad();
    if (g_loaded->ok() && !g_loaded->value().complete())
        return makeError(
            "CUPTI at " + g_loaded->value().path +
            " has no range profiler (CUDA 12.6 or newer needed); missing: " + g_loaded->value().missing);
    return *g_loaded;
}

Result<ProfileOutcome> profileLaunch(const ProfileRequest& req)
{
    auto lib = loadCupti();
    if (!lib) return lib.error();
    if (req.metrics.empty()) return makeError("no metrics requested");
    const Api& api = g_api;
    Run run(api);
    auto ctx = static_cast<cupti::Context>(req.context);

    cupti::ProfilerInitializeParams init{cupti::kProfilerInitializeSize, nullptr};
    SASSX_TRY(run.call(api.profilerInitialize, &init, "cuptiProfilerInitialize"));

    cupti::DeviceGetChipNameParams chip{cupti::kDeviceGetChipNameSize, nullptr, size_t(req.deviceIndex),
                                        nullptr};
    SASSX_TRY(run.call(api.deviceGetChipName, &chip, "cuptiDeviceGetChipName"));
    ProfileOutcome outcome;
    outcome.chip = chip.pChipName ? chip.pChipName : "";

    cupti::GetCounterAvailabilityParams avail{cupti::kGetCounterAvailabilitySize, nullptr, ctx, 0, nullptr};
    SASSX_TRY(run.call(api.getCounterAvailability, &avail, "cuptiProfilerGetCounterAvailability"));
    std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    SASSX_TRY(run.call(api.getCounterAvailability, &avail, "cuptiProfilerGetCounterAvailability"));

    cupti::HostInitializeParams host{cupti::kHostInitializeSize, nullptr,
                                     cupti::kRangeProfiler,      chip.pChipName,
                                     availability.data(),        nullptr};
    SASSX_TRY(run.call(api.hostInitialize, &host, "cuptiProfilerHostInitialize"));
    run.m_host = host.pHostObject;

    // Check each name first, so an unknown one is reported by name rather than as a failed config.
    std::vector<std::string> units(req.metrics.size());
    std::string unknown;
    for (size_t i = 0; i < req.metrics.size(); ++i) {
        cupti::HostGetMetricPropertiesParams p{};
        p.structSize = cupti::kHostGetMetricPropertiesSize;
        p.pHostObject = run.m_host;
        p.pMetricName = req.metrics[i].c_str();
        if (api.hostGetMetricProperties(&p) != cupti::kSuccess)
            unknown += (unknown.empty() ? "" : ", ") + req.metrics[i];
        else
            units[i] = p.pDimUnit ? p.pDimUnit : "";
    }
    if (!unknown.empty())
        return makeError("CUPTI does not know these metrics on " + outcome.chip + ": " + unknown);

    std::vector<const char*> names;
    for (const auto& m : req.metrics)
        names.push_back(m.c_str());
    cupti::HostConfigAddMetricsParams add{cupti::kHostConfigAddMetricsSize, nullptr, run.m_host, names.data(),
                                          names.size()};
    SASSX_TRY(run.call(api.hostConfigAddMetrics, &add, "cuptiProfilerHostConfigAddMetrics"));
    cupti::HostGetConfigImageSizeParams cfgSize{cupti::kHostGetConfigImageSizeSize, nullptr, run.m_host, 0};
    SASSX_TRY(run.call(api.hostGetConfigImageSize, &cfgSize, "cuptiProfilerHostGetConfigImageSize"));
    std::vector<uint8_t> config(cfgSize.configImageSize);
    cupti::HostGetConfigImageParams cfg{cupti::kHostGetConfigImageSize, nullptr, run.m_host, config.size(),
                                        config.data()};
    SASSX_TRY(run.call(api.hostGetConfigImage, &cfg, "cuptiProfilerHostGetConfigImage"));
    cupti::HostGetNumOfPassesParams passes{cupti::kHostGetNumOfPassesSize, nullptr, config.size(),
                                           config.data(), 0};
    SASSX_TRY(run.call(api.hostGetNumOfPasses, &passes, "cuptiProfilerHostGetNumOfPasses"));

    cupti::RangeEnableParams enable{cupti::kRangeEnableSize, nullptr, ctx, nullptr};
    SASSX_TRY(run.call(api.rangeEnable, &enable, "cuptiRangeProfilerEnable"));
    run.m_range = enable.pRangeProfilerObject;

    cupti::RangeGetCounterDataSizeParams cds{};
    cds.structSize = cupti::kRangeGetCounterDataSizeSize;
    cds.pRangeProfilerObject = run.m_range;
    cds.pMetricNames = names.data();
    cds.numMetrics = names.size();
    cds.maxNumOfRanges = 1;
    cds.maxNumRangeTreeNodes = 1;
    SASSX_TRY(run.call(api.rangeGetCounterDataSize, &cds, "cuptiRangeProfilerGetCounterDataSize"));
    std::vector<uint8_t> counterData(cds.counterDataSize);
    cupti::RangeCounterDataImageInitializeParams cdi{cupti::kRangeCounterDataImageInitializeSize, nullptr,
                                                     run.m_range, counterData.size(), counterData.data()};
    SASSX_TRY(
        run.call(api.rangeCounterDataImageInitialize, &cdi, "cuptiRangeProfilerCounterDataImageInitialize"));

    cupti::RangeSetConfigParams set{};
    set.structSize = cupti::kRangeSetConfigSize;
    set.pRangeProfilerObject = run.m_range;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = counterData.size();
    set.pCounterDataImage = counterData.data();
    // Auto range: the range is exactly the kernel. A user range (push/pop around the launch) also
    // spans the host's synchronisation: on an H100 it stretched gpu__time_duration by 70-90 us and
    // diluted every "elapsed" ratio (sgemm SM throughput 39% vs ncu's 76%).
    set.range = cupti::kAutoRange;
    set.replayMode = cupti::kUserReplay;
    set.maxRangesPerPass = 1;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    SASSX_TRY(run.call(api.rangeSetConfig, &set, "cuptiRangeProfilerSetConfig"));

    bool allSubmitted = false;
    while (!allSubmitted) {
        if (outcome.passes >= req.maxPasses)
            return makeError("CUPTI wanted more than " + std::to_string(req.maxPasses) + " passes");
        if (req.beforePass) SASSX_TRY(req.beforePass());
        if (req.synchronize) SASSX_TRY(req.synchronize());
        cupti::RangeObjectParams start{cupti::kRangeObjectSize, nullptr, run.m_range};
        SASSX_TRY(run.call(api.rangeStart, &start, "cuptiRangeProfilerStart"));
        SASSX_TRY(req.launch());
        if (req.synchronize) SASSX_TRY(req.synchronize());
        cupti::RangeStopParams stop{cupti::kRangeStopSize, nullptr, run.m_range, 0, 0, 0};
        SASSX_TRY(run.call(api.rangeStop, &stop, "cuptiRangeProfilerStop"));
        allSubmitted = stop.isAllPassSubmitted != 0;
        ++outcome.passes;
    }
    if (req.synchronize) SASSX_TRY(req.synchronize());
    cupti::RangeDecodeDataParams decode{cupti::kRangeDecodeDataSize, nullptr, run.m_range, 0};
    SASSX_TRY(run.call(api.rangeDecodeData, &decode, "cuptiRangeProfilerDecodeData"));
    if (decode.numOfRangeDropped)
        return makeError("CUPTI dropped " + std::to_string(decode.numOfRangeDropped) + " range(s)");
    cupti::RangeGetCounterDataInfoParams info{cupti::kRangeGetCounterDataInfoSize, nullptr,
                                              counterData.data(), counterData.size(), 0};
    SASSX_TRY(run.call(api.rangeGetCounterDataInfo, &info, "cuptiRangeProfilerGetCounterDataInfo"));
    if (info.numTotalRanges < 1) return makeError("CUPTI recorded no range (was the kernel launched?)");

    std::vector<double> values(names.size(), 0.0);
    cupti::HostEvaluateToGpuValuesParams eval{cupti::kHostEvaluateToGpuValuesSize,
                                              nullptr,
                                              run.m_host,
                                              counterData.data(),
                                              counterData.size(),
                                              0,
                                              names.data(),
                                              names.size(),
                                              values.data()};
    SASSX_TRY(run.call(api.hostEvaluateToGpuValues, &eval, "cuptiProfilerHostEvaluateToGpuValues"));
    for (size_t i = 0; i < names.size(); ++i) {
        MetricValue m;
        m.name = req.metrics[i];
        m.value = values[i];
        m.unit = units[i];
        m.source = req.source;
        outcome.values.push_back(std::move(m));
    }
    return outcome;
}

} // namespace sassx::eval
