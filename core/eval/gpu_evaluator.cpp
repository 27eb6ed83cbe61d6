#include "core/eval/gpu_evaluator.h"

#include "core/common/paths.h"
#include "core/cubin/cubin.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace sassx::eval {

namespace fs = std::filesystem;
using nlohmann::json;

std::string defaultWorkerPath()
{
    if (const char* e = std::getenv("SASSX_WORKER"); e && *e) return e;
    const fs::path exe = executableDir();
    if (!exe.empty()) {
        for (const fs::path& p : {exe / "sassx-worker", exe / ".." / "worker" / "sassx-worker",
                                  exe / ".." / "app" / "worker" / "sassx-worker",
                                  exe / ".." / ".." / "app" / "worker" / "sassx-worker"})
            if (fs::exists(p)) return fs::weakly_canonical(p).string();
    }
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty() && fs::exists(fs::path(dir) / "sassx-worker"))
                return (fs::path(dir) / "sassx-worker").string();
    }
    return {};
}

Result<std::vector<int>> parseGpuList(const std::string& list)
{
    std::vector<int> gpus;
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        char* end = nullptr;
        const long v = std::strtol(item.c_str(), &end, 10);
        if (*end || v < 0 || v > 1023) return makeError("--gpus: \"" + item + "\" is not a GPU index");
        gpus.push_back(int(v));
    }
    if (gpus.empty()) return makeError("--gpus: empty list");
    return gpus;
}

GpuEvaluator::GpuEvaluator(GpuEvaluatorOptions options) : m_options(std::move(options)) {}

Result<std::unique_ptr<GpuEvaluator>> GpuEvaluator::create(GpuEvaluatorOptions options)
{
    if (options.pool.workerPath.empty()) options.pool.workerPath = defaultWorkerPath();
    if (options.pool.workerPath.empty())
        return makeError("sassx-worker not found (set SASSX_WORKER or install it beside sassx-cli)");
    std::unique_ptr<GpuEvaluator> e(new GpuEvaluator(options));
    e->m_pool = std::make_unique<WorkerPool>(options.pool);
    if (Status s = e->m_pool->start(); !s) return s.error();
    return e;
}

Status GpuEvaluator::setBaseline(const LaunchSpec& spec, const std::vector<uint8_t>& cubin)
{
    auto parsed = Cubin::parse(cubin);
    if (!parsed) return makeError("baseline cubin: " + parsed.message());
    if (Status s = validateAgainstCubin(spec, parsed.value()); !s) return s;
    auto answer = m_pool->loadBaseline(protocol::makeLoadBaseline(0, spec, cubin, m_options.baseline));
    if (!answer) return answer.error();
    const json& a = answer.value();
    m_spec = spec;
    m_baselineCubin = cubin;
    m_hasBaseline = true;
    m_baseline = {};
    m_baseline.source = {a.contains("source") ? a.at("source").value("device", std::string()) : std::string(),
                         FigureKind::Measured};
    m_baseline.medianUs = a.value("baseline_median_us", 0.0);
    m_baseline.noiseFloor = a.value("noise_floor", 0.0);
    m_baseline.launchMode =
        parseLaunchMode(a.value("launch_mode", std::string())).value_or(LaunchMode::Events);
    m_baseline.launchesPerSample = a.value("launches_per_sample", 1);
    m_baseline.raw = a;
    return Ok{};
}

std::chrono::milliseconds GpuEvaluator::evaluateTimeout(const EvalOptions& o) const
{
    // Generous: 4x the expected GPU time of all rounds plus correctness, plus module load slack.
    const int rounds = o.race.enabled() ? o.race.maxScreenRounds + o.race.confirmRounds
                                        : o.plan.screenRounds + o.plan.confirmRounds;
    const double launches =
        double(m_options.baseline.inputSets + 2) + 2.0 * rounds * m_baseline.launchesPerSample;
    const auto expected = std::chrono::milliseconds(int64_t(4.0 * launches * m_baseline.medianUs / 1000.0));
    return std::max(m_options.pool.requestTimeout, expected + m_options.timeoutSlack);
}

std::vector<EvalResult> GpuEvaluator::evaluateBatch(const std::vector<Candidate>& candidates,
                                                    const EvalOptions& options)
{
    std::vector<EvalResult> results(candidates.size());
    if (!m_hasBaseline) {
        for (auto& r : results)
            r = failedResult(failure::kError, "evaluate before setBaseline");
        return results;
    }
    if (options.plan.processes >= 2 && options.plan.confirmRounds >= 2 && !options.checkOnly &&
        !options.race.enabled()) {
        for (size_t i = 0; i < candidates.size(); ++i)
            results[i] = evaluateAcrossProcesses(candidates[i], options);
        return results;
    }
    // One candidate measured on many fresh rounds (a climb's re-measure of its incumbent after a win)
    // would leave all but one GPU of a pool idle: its rounds are split over the workers and the parts
    // combined as fresh processes' parts are. On four H200s the default search re-measured 22-32 times in
    // 25 s with three GPUs waiting each time (docs/status.md, "Re-measures on a GPU pool").
    const int workers = parallelism();
    if (candidates.size() == 1 && workers > 1 && !options.checkOnly && !options.race.enabled() &&
        options.plan.processes < 2 && options.plan.confirmRounds >= 2 * workers) {
        EvalOptions part = options;
        part.plan.confirmRounds = (options.plan.confirmRounds + workers - 1) / workers;
        std::vector<EvalResult> parts =
            evaluateBatch(std::vector<Candidate>(size_t(workers), candidates.front()), part);
        for (EvalResult& p : parts)
            if (p.timing) p.timing->noiseFloor = m_baseline.noiseFloor;
        return {combineProcessResults(parts)};
    }
    // The original as the reference is the baseline the worker already holds: no bytes to send.
    auto reference =
        options.reference ? options.reference->bytes() : Result<const std::vector<uint8_t>*>(nullptr);
    if (!reference) {
        for (auto& r : results)
            r = failedResult(failure::kError, "the reference cannot be written: " + reference.message());
        return results;
    }
    // The reference goes with every request: encoded once per batch, not once per candidate.
    json referenceRequest = json::object();
    if (*reference) protocol::setReference(referenceRequest, **reference);
    protocol::EvaluateOptions po;
    po.plan = options.plan;
    po.checkOnly = options.checkOnly;
    po.race = options.race;
    std::vector<PoolJob> jobs;
    std::vector<size_t> jobOf;
    for (size_t i = 0; i < candidates.size(); ++i) {
        auto bytes = candidates[i].bytes();
        if (!bytes) {
            results[i] = failedResult(failure::kError, "the writer refused the schedule: " + bytes.message());
            continue;
        }
        const std::vector<uint8_t>& cubin = candidates[i].isOriginal() ? m_baselineCubin : **bytes;
        if (m_options.precheck) {
            auto parsed = Cubin::parse(cubin);
            Status s = parsed ? validateAgainstCubin(m_spec, parsed.value()) : Status(parsed.error());
            if (!s) {
                const bool missing = parsed && !parsed->findKernel(m_spec.kernel);
                results[i] = failedResult(!parsed   ? failure::kLoad
                                          : missing ? failure::kKernelMissing
                                                    : failure::kParams,
                                          s.message());
                results[i].source = m_baseline.source;
                continue;
            }
        }
        json request = protocol::makeEvaluate(0, cubin, po);
        for (auto it = referenceRequest.begin(); it != referenceRequest.end(); ++it)
            request[it.key()] = it.value();
        jobs.push_back({std::move(request), evaluateTimeout(options)});
        jobOf.push_back(i);
    }
    std::vector<PoolReply> replies = m_pool->run(std::move(jobs));
    for (size_t j = 0; j < replies.size(); ++j) {
        EvalResult r = evalResultFromResponse(replies[j].response);
        r.worker = replies[j].worker;
        r.wallMs = replies[j].wallMs;
        if (!r.source.kind) r.source = m_baseline.source;
        results[jobOf[j]] = std::move(r);
    }
    return results;
}

EvalResult GpuEvaluator::evaluate(const Candidate& candidate, const EvalOptions& options)
{
    return evaluateBatch({candidate}, options).front();
}

int GpuEvaluator::parallelism() const
{
    return std::max(1, m_pool->workerCount());
}

EvalResult GpuEvaluator::evaluateAcrossProcesses(const Candidate& candidate, const EvalOptions& options)
{
    // A final figure: the rounds spread over fresh worker processes, one measurement each, so that
    // what differs between processes (context, buffers, placement) is in the interval
    // (docs/status.md, "Final figures over 5 fresh processes").
    const int processes = std::min(options.plan.processes, options.plan.confirmRounds);
    std::vector<EvalResult> parts;
    int left = options.plan.confirmRounds;
    for (int p = 0; p < processes; ++p) {
        if (p > 0) m_pool->renew();
        EvalOptions one = options;
        one.plan.processes = 1;
        one.plan.confirmRounds = left / (processes - p);
        left -= one.plan.confirmRounds;
        parts.push_back(evaluateBatch({candidate}, one).front());
        if (parts.back().timing) parts.back().timing->noiseFloor = m_baseline.noiseFloor;
        if (!parts.back().ok()) return parts.back();
    }
    return combineProcessResults(parts);
}

Result<std::vector<MetricValue>> GpuEvaluator::metrics(const Candidate& candidate,
                                                       const std::vector<std::string>& names)
{
    if (!m_hasBaseline) return makeError("metrics before setBaseline");
    auto bytes = candidate.bytes();
    if (!bytes) return makeError("the writer refused the schedule: " + bytes.message());
    PoolReply reply = m_pool->runOne(
        {protocol::makeMetrics(0, **bytes, names, m_options.metricsBackend), std::chrono::minutes(5)});
    const json& r = reply.response;
    if (r.value("status", std::string()) != "ok")
        return makeError(r.value("error", std::string("metrics failed")));
    EvalResult parsed = evalResultFromResponse(r);
    return parsed.metrics;
}

Result<StallProfile> GpuEvaluator::stalls(const Candidate& candidate, int periodExponent)
{
    if (!m_hasBaseline) return makeError("stall sampling before setBaseline");
    auto bytes = candidate.bytes();
    if (!bytes) return makeError("the writer refused the schedule: " + bytes.message());
    PoolReply reply =
        m_pool->runOne({protocol::makePcSample(0, **bytes, periodExponent), std::chrono::minutes(3)});
    const json& r = reply.response;
    if (r.value("status", std::string()) != "ok") {
        std::string why = r.value("error", std::string("stall sampling failed"));
        if (r.value("failure_kind", std::string()) == failure::kFault)
            why = "the kernel faulted while sampled: " + why;
        return makeError(why);
    }
    if (!r.contains("profile")) return makeError("the worker's pc_sample reply has no profile");
    return stallProfileFromJson(r.at("profile"));
}

} // namespace sassx::eval
