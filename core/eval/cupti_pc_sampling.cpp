#include "core/eval/cupti_pc_sampling.h"

#include "core/eval/cupti_pcsampling_abi.h"
#include "core/eval/cupti_profiler.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>

namespace sassx::eval {

namespace {

namespace pcs = cupti::pcs;

struct PcsApi
{
    using Fn = cupti::Result (*)(void*);
    cupti::Result (*getResultString)(cupti::Result, const char**) = nullptr;
    cupti::Result (*getVersion)(uint32_t*) = nullptr;
    Fn enable = nullptr, disable = nullptr, start = nullptr, stop = nullptr, getData = nullptr;
    Fn getNumStallReasons = nullptr, getStallReasons = nullptr, setConfig = nullptr, getCubinCrc = nullptr;
    std::string path;
    uint32_t version = 0;

    std::string describe(cupti::Result r) const
    {
        const char* text = nullptr;
        if (getResultString) getResultString(r, &text);
        std::string s = (text ? text : "CUPTI error") + std::string(" (") + std::to_string(r) + ")";
        if (r == cupti::kErrorInsufficientPrivileges)
            s +=
                "; sampling needs access to GPU performance counters (NVreg_RestrictProfilingToAdminUsers=0, "
                "or run as root)";
        if (r == 27)
            s += "; this GPU, driver or setup (vGPU, MIG, confidential computing, WSL) cannot sample";
        return s;
    }
};

Result<PcsApi> bindApi()
{
    auto opened = openCuptiLibrary();
    if (!opened) return opened.error();
    void* lib = opened->first;
    PcsApi a;
    a.path = opened->second;
    std::string missing;
    auto bind = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
        if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    bind(a.getResultString, "cuptiGetResultString");
    bind(a.getVersion, "cuptiGetVersion");
    bind(a.enable, "cuptiPCSamplingEnable");
    bind(a.disable, "cuptiPCSamplingDisable");
    bind(a.start, "cuptiPCSamplingStart");
    bind(a.stop, "cuptiPCSamplingStop");
    bind(a.getData, "cuptiPCSamplingGetData");
    bind(a.getNumStallReasons, "cuptiPCSamplingGetNumStallReasons");
    bind(a.getStallReasons, "cuptiPCSamplingGetStallReasons");
    bind(a.setConfig, "cuptiPCSamplingSetConfigurationAttribute");
    bind(a.getCubinCrc, "cuptiGetCubinCrc");
    if (!missing.empty()) return makeError(a.path + " lacks PC sampling (" + missing + ")");
    if (a.getVersion(&a.version) != cupti::kSuccess || a.version < pcs::kMinApiVersion)
        return makeError(a.path + ": CUPTI API version " + std::to_string(a.version) +
                         "; PC sampling needs CUPTI 12.4 or newer (version " +
                         std::to_string(pcs::kMinApiVersion) + "; the per-PC record changed there)");
    return a;
}

// Buffers CUPTI fills: n records, each with room for every stall reason.
struct RecordBuffer
{
    RecordBuffer(size_t records, size_t reasons) : pcs(records), stalls(records * reasons)
    {
        data.size = sizeof(pcs::Data);
        data.collectNumPcs = records;
        data.pPcData = pcs.data();
        for (size_t i = 0; i < records; ++i) {
            pcs[i].size = sizeof(pcs::PCData);
            pcs[i].stallReasonCount = reasons;
            pcs[i].stallReason = stalls.data() + i * reasons;
        }
    }
    pcs::Data data{};
    std::vector<pcs::PCData> pcs;
    std::vector<pcs::StallReason> stalls;
};

// Enable..Disable on one context; Disable is skipped after a fault (a CUPTI call on a dead context
// can block).
class Session
{
public:
    Session(const PcsApi& api, const PcSampleRequest& r) : m_api(api), m_request(r) {}
    ~Session()
    {
        if (m_enabled && !(m_request.contextLost && m_request.contextLost())) (void)disable();
    }
    Status call(PcsApi::Fn fn, void* params, const char* what) const
    {
        const cupti::Result r = fn(params);
        if (r != cupti::kSuccess) return makeError(std::string(what) + ": " + m_api.describe(r));
        return Ok{};
    }
    Status enable()
    {
        pcs::ContextParams p{pcs::kContextParamsSize, nullptr, ctx()};
        if (Status s = call(m_api.enable, &p, "cuptiPCSamplingEnable"); !s) return s;
        m_enabled = true;
        return Ok{};
    }
    Status disable()
    {
        m_enabled = false;
        pcs::ContextParams p{pcs::kContextParamsSize, nullptr, ctx()};
        return call(m_api.disable, &p, "cuptiPCSamplingDisable");
    }
    cupti::Context ctx() const { return static_cast<cupti::Context>(m_request.context); }

private:
    const PcsApi& m_api;
    const PcSampleRequest& m_request;
    bool m_enabled = false;
};

#define SASSX_TRY(expr)                                                                                      \
    do {                                                                                                     \
        if (Status s_ = (expr); !s_) return s_.error();                                                      \
    } while (0)

Result<std::vector<StallReasonInfo>> stallReasons(const PcsApi& api, Session& session)
{
    size_t n = 0;
    pcs::GetNumStallReasonsParams np{pcs::kGetNumStallReasonsSize, nullptr, session.ctx(), &n};
    SASSX_TRY(session.call(api.getNumStallReasons, &np, "cuptiPCSamplingGetNumStallReasons"));
    std::vector<uint32_t> index(n);
    std::vector<std::vector<char>> names(n, std::vector<char>(pcs::kStallReasonNameSize, 0));
    std::vector<char*> namePtrs(n);
    for (size_t i = 0; i < n; ++i)
        namePtrs[i] = names[i].data();
    pcs::GetStallReasonsParams sp{
        pcs::kGetStallReasonsSize, nullptr, session.ctx(), n, index.data(), namePtrs.data()};
    SASSX_TRY(session.call(api.getStallReasons, &sp, "cuptiPCSamplingGetStallReasons"));
    std::vector<StallReasonInfo> out;
    for (size_t i = 0; i < n; ++i) {
        StallReasonInfo r;
        r.index = index[i];
        r.name = std::string(names[i].data(), strnlen(names[i].data(), pcs::kStallReasonNameSize));
        r.word = stallWord(r.name);
        r.notIssued = isNotIssuedReason(r.name);
        out.push_back(std::move(r));
    }
    return out;
}

Status configure(const PcsApi& api, Session& session, uint32_t period, std::vector<uint32_t>& reasonIndex,
                 RecordBuffer& configBuffer)
{
    std::vector<pcs::ConfigurationInfo> items(7);
    for (auto& i : items)
        i = pcs::ConfigurationInfo{};
    items[0].attributeType = pcs::kCollectionMode;
    items[0].attributeData.collectionMode = pcs::kContinuous;
    items[1].attributeType = pcs::kEnableStartStopControl;
    items[1].attributeData.enableStartStopControl = 1;
    items[2].attributeType = pcs::kSamplingPeriod;
    items[2].attributeData.samplingPeriod = period;
    items[3].attributeType = pcs::kStallReason;
    items[3].attributeData.stallReason.stallReasonCount = reasonIndex.size();
    items[3].attributeData.stallReason.pStallReasonIndex = reasonIndex.data();
    items[4].attributeType = pcs::kScratchBufferSize;
    items[4].attributeData.scratchBufferSize = size_t(16) << 20; // the default 1 MiB holds ~5,500 PCs
    items[5].attributeType = pcs::kOutputDataFormat;
    items[5].attributeData.outputDataFormat = pcs::kParsed;
    items[6].attributeType = pcs::kSamplingDataBuffer;
    items[6].attributeData.samplingDataBuffer = &configBuffer.data;
    pcs::ConfigurationInfoParams p{pcs::kConfigurationInfoParamsSize, nullptr, session.ctx(), items.size(),
                                   items.data()};
    Status s = session.call(api.setConfig, &p, "cuptiPCSamplingSetConfigurationAttribute");
    if (!s)
        for (const auto& i : items)
            if (i.attributeStatus != cupti::kSuccess)
                return makeError(s.message() + " (attribute " + std::to_string(int(i.attributeType)) + ": " +
                                 api.describe(i.attributeStatus) + ")");
    return s;
}

// Adds the records of one buffer to the profile; function names are collected to be freed once.
void takeRecords(const pcs::Data& data, uint64_t crc, const std::string& kernel, StallProfile& out,
                 std::set<char*>& names)
{
    out.totalSamples += data.totalSamples;
    out.droppedSamples += data.droppedSamples;
    out.hardwareBufferFull = out.hardwareBufferFull || data.hardwareBufferFull;
    for (size_t i = 0; i < data.totalNumPcs && i < data.collectNumPcs; ++i) {
        const pcs::PCData& pc = data.pPcData[i];
        if (pc.functionName) names.insert(pc.functionName);
        const bool ours = pc.cubinCrc == crc && pc.functionName && kernel == pc.functionName;
        auto& slot = out.pcs[pc.pcOffset];
        uint64_t total = 0;
        for (size_t r = 0; r < pc.stallReasonCount; ++r) {
            const pcs::StallReason& s = pc.stallReason[r];
            if (!s.samples) continue;
            const StallReasonInfo* info = out.reason(s.pcSamplingStallReasonIndex);
            if (!info || !info->notIssued) total += s.samples;
            if (!ours) continue;
            auto it = std::find_if(slot.begin(), slot.end(),
                                   [&](const auto& e) { return e.first == s.pcSamplingStallReasonIndex; });
            if (it == slot.end())
                slot.emplace_back(s.pcSamplingStallReasonIndex, s.samples);
            else
                it->second += s.samples;
        }
        if (ours)
            out.kernelSamples += total;
        else
            out.otherSamples += total;
        if (slot.empty()) out.pcs.erase(pc.pcOffset);
    }
}

Status drain(const PcsApi& api, Session& session, RecordBuffer& buffer, uint64_t crc,
             const std::string& kernel, StallProfile& out, std::set<char*>& names)
{
    for (int round = 0; round < 100000; ++round) {
        buffer.data.totalNumPcs = 0;
        buffer.data.remainingNumPcs = 0;
        pcs::GetDataParams p{pcs::kGetDataSize, nullptr, session.ctx(), &buffer.data};
        SASSX_TRY(session.call(api.getData, &p, "cuptiPCSamplingGetData"));
        takeRecords(buffer.data, crc, kernel, out, names);
        if (buffer.data.remainingNumPcs == 0) return Ok{};
    }
    return makeError("cuptiPCSamplingGetData kept reporting more records");
}

} // namespace

Result<StallProfile> sampleLaunch(const PcSampleRequest& r)
{
    static std::mutex mutex;
    static std::optional<Result<PcsApi>> bound;
    std::lock_guard lock(mutex);
    if (!bound) bound = bindApi();
    if (!*bound) return bound->error();
    const PcsApi& api = bound->value();

    StallProfile out;
    out.source = r.source;
    out.kernel = r.kernel;
    out.cupti = api.path;
    Session session(api, r);
    SASSX_TRY(session.enable()); // every other PC sampling call comes after Enable
    auto reasons = stallReasons(api, session);
    if (!reasons) return reasons.error();
    out.reasons = std::move(reasons.value());
    std::vector<uint32_t> reasonIndex;
    for (const auto& reason : out.reasons)
        reasonIndex.push_back(reason.index);

    pcs::GetCubinCrcParams crc{pcs::kGetCubinCrcSize, r.cubin->size(), r.cubin->data(), 0};
    SASSX_TRY(session.call(api.getCubinCrc, &crc, "cuptiGetCubinCrc"));
    SASSX_TRY(r.load());
    auto duration = r.timeUnsampled();
    if (!duration) return duration.error();
    out.durationUs = *duration;
    out.periodExponent = r.periodExponent ? r.periodExponent
                                          : choosePeriodExponent(out.durationUs, r.clockKHz,
                                                                 r.multiprocessors, r.targetSamples);
    const size_t records = 65536; // the most PCs one GetData returns; a kernel this size fits in two
    RecordBuffer configBuffer(records, out.reasons.size()), getBuffer(records, out.reasons.size());
    SASSX_TRY(configure(api, session, uint32_t(out.periodExponent), reasonIndex, configBuffer));

    SASSX_TRY(r.beforeLaunch());
    pcs::ContextParams cp{pcs::kContextParamsSize, nullptr, session.ctx()};
    SASSX_TRY(session.call(api.start, &cp, "cuptiPCSamplingStart"));
    auto sampled = r.launchTimed();
    if (!sampled) return sampled.error(); // a fault: the session skips Disable
    out.sampledLaunchUs = *sampled;
    SASSX_TRY(session.call(api.stop, &cp, "cuptiPCSamplingStop"));
    std::set<char*> names;
    Status drained = drain(api, session, getBuffer, crc.cubinCrc, r.kernel, out, names);
    // At Disable CUPTI moves what it still holds into the configured buffer.
    Status disabled = session.disable();
    if (drained && disabled && configBuffer.data.totalNumPcs > 0)
        takeRecords(configBuffer.data, crc.cubinCrc, r.kernel, out, names);
    for (char* n : names)
        std::free(n);
    SASSX_TRY(drained);
    SASSX_TRY(disabled);

    if (out.kernelSamples == 0)
        return makeError("no samples landed in " + r.kernel + ": the kernel is too short to sample (" +
                         std::to_string(out.durationUs) + " us at one sample per SM every 2^" +
                         std::to_string(out.periodExponent) + " cycles)");
    if (out.kernelSamples < 2000)
        out.warnings.push_back("only " + std::to_string(out.kernelSamples) +
                               " samples landed in the kernel: per-instruction shares are noisy");
    if (out.droppedSamples)
        out.warnings.push_back(std::to_string(out.droppedSamples) +
                               " samples were dropped (buffer back-pressure)");
    if (out.hardwareBufferFull) out.warnings.push_back("the hardware sample buffer overflowed");
    return out;
}

} // namespace sassx::eval
