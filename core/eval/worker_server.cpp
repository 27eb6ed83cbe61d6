#include "core/eval/worker_server.h"

#include "core/eval/eval_result.h"
#include "core/eval/gpu_session.h"
#include "core/eval/metrics_backends.h"
#include "core/eval/oneshot_files.h"
#include "core/eval/protocol.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

namespace sassx::eval {

using nlohmann::json;

namespace {

// Requests, one JSON line each, read from fd 0 in large chunks. std::getline on std::cin, which is
// synchronised with stdio here, reads a character at a time: 2.2 ms for a 190 KB request of attention_fwd
// (a candidate and its reference, base64), and the pool's write to this worker blocks until the line is
// read, so the search paid it once per candidate, one worker after another (docs/evaluator.md, "Requests").
class RequestLines
{
public:
    bool next(std::string& line)
    {
        while (true) {
            const size_t end = m_buffer.find('\n', m_scanned);
            if (end != std::string::npos) {
                line.assign(m_buffer, 0, end);
                m_buffer.erase(0, end + 1);
                m_scanned = 0;
                return true;
            }
            m_scanned = m_buffer.size();
            char chunk[1 << 16];
            const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                // End of input: a last line without its newline still counts.
                if (m_buffer.empty()) return false;
                line.swap(m_buffer);
                m_buffer.clear();
                m_scanned = 0;
                return true;
            }
            m_buffer.append(chunk, size_t(n));
        }
    }

private:
    std::string m_buffer;
    size_t m_scanned = 0; // bytes of m_buffer already searched for a newline
};

void send(const json& message)
{
    const std::string line = protocol::encodeLine(message);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

int oneshot(int argc, char** argv, int i)
{
    if (i + 3 > argc) {
        std::fprintf(stderr, "usage: sassx-worker --oneshot SPEC.json CUBIN SEED\n");
        return 2;
    }
    auto spec = loadLaunchSpec(argv[i]);
    if (!spec) {
        std::fprintf(stderr, "%s\n", spec.message().c_str());
        return 2;
    }
    std::ifstream in(argv[i + 1], std::ios::binary);
    std::vector<uint8_t> cubin{std::istreambuf_iterator<char>(in), {}};
    auto ctx = GpuContext::open(0);
    if (!ctx) {
        std::fprintf(stderr, "%s\n", ctx.message().c_str());
        return 1;
    }
    GpuSession session(std::move(ctx.value()));
    Status s = session.runOnce(spec.value(), cubin, std::strtoull(argv[i + 2], nullptr, 10));
    if (!s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        std::fflush(stderr);
        _exit(session.contextLost() ? 3 : 1);
    }
    return 0;
}

// The JSON children (--cupti-oneshot, --pcsample-oneshot): SPEC CUBIN SEED EXTRA. Prints the usage
// (nullopt, exit 2) when arguments are missing, one failed JSON line when the spec is bad.
struct OneshotArgs
{
    LaunchSpec spec;
    std::vector<uint8_t> cubin;
    uint64_t seed = 0;
    std::string extra;
};

int sendFailure(const std::string& why, int code)
{
    send({{"status", "failed"}, {"error", why}});
    return code;
}

std::optional<OneshotArgs> oneshotArgs(int argc, char** argv, int i, const char* usage, int& exitCode)
{
    if (i + 4 > argc) {
        std::fprintf(stderr, "usage: sassx-worker %s\n", usage);
        exitCode = 2;
        return std::nullopt;
    }
    auto spec = loadLaunchSpec(argv[i]);
    if (!spec) {
        exitCode = sendFailure(spec.message(), 2);
        return std::nullopt;
    }
    OneshotArgs a;
    a.spec = std::move(spec.value());
    std::ifstream in(argv[i + 1], std::ios::binary);
    a.cubin.assign(std::istreambuf_iterator<char>(in), {});
    a.seed = std::strtoull(argv[i + 2], nullptr, 10);
    a.extra = argv[i + 3];
    return a;
}

// The child that `metrics` starts for CUPTI: profiles one launch and prints one JSON line.
int cuptiOneshot(int argc, char** argv, int i)
{
    int code = 0;
    auto args = oneshotArgs(argc, argv, i, "--cupti-oneshot SPEC.json CUBIN SEED METRIC[,METRIC...]", code);
    if (!args) return code;
    std::vector<std::string> metrics;
    const std::string& list = args->extra;
    for (size_t start = 0; start <= list.size();) {
        const size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) metrics.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    auto ctx = GpuContext::open(0);
    if (!ctx) return sendFailure(ctx.message(), 1);
    GpuSession session(std::move(ctx.value()));
    auto outcome = session.profileOnce(args->spec, args->cubin, args->seed, metrics);
    if (!outcome) {
        send({{"status", "failed"}, {"error", outcome.message()}});
        std::fflush(stdout);
        _exit(session.contextLost() ? 3 : 1);
    }
    json out{
        {"status", "ok"}, {"chip", outcome->chip}, {"passes", outcome->passes}, {"metrics", json::array()}};
    if (auto lib = loadCupti()) out["cupti"] = lib->path;
    for (const MetricValue& m : outcome->values)
        out["metrics"].push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}});
    send(out);
    return 0;
}

// The child that `pc_sample` starts: samples one launch and prints one JSON line, {"status":"ok",
// "profile":{...}} or {"status":"failed","error":...}; exit 3 after a fault.
int pcSampleOneshot(int argc, char** argv, int i)
{
    int code = 0;
    auto args = oneshotArgs(argc, argv, i, "--pcsample-oneshot SPEC.json CUBIN SEED PERIOD|auto", code);
    if (!args) return code;
    const std::string& period = args->extra;
    const int exponent = period == "auto" ? 0 : std::atoi(period.c_str());
    if (period != "auto" && (exponent < 5 || exponent > 31))
        return sendFailure("sampling period must be auto or 5..31 (2^N cycles), not " + period, 2);
    auto ctx = GpuContext::open(0);
    if (!ctx) return sendFailure(ctx.message(), 1);
    GpuSession session(std::move(ctx.value()));
    auto profile = session.sampleOnce(args->spec, args->cubin, args->seed, exponent);
    if (!profile) {
        send({{"status", "failed"}, {"error", profile.message()}});
        std::fflush(stdout);
        _exit(session.contextLost() ? 3 : 1);
    }
    send({{"status", "ok"}, {"profile", toJson(profile.value())}});
    return 0;
}

// Op `pc_sample`: stall samples of the baseline or of the request's cubin, from a sampling child.
json pcSample(GpuSession& session, const json& request)
{
    const LaunchSpec* spec = session.spec();
    if (!spec)
        return protocol::makeErrorResponse(request, "error", failure::kError,
                                           "pc_sample before load_baseline");
    MetricsRequest r;
    r.runner = selfExecutable();
    r.spec = *spec;
    if (request.contains("cubin_b64") || request.contains("cubin_path")) {
        auto cubin = protocol::cubinFromRequest(request);
        if (!cubin) return protocol::makeErrorResponse(request, "failed", failure::kLoad, cubin.message());
        r.cubin = std::move(cubin.value());
    } else {
        r.cubin = session.baselineCubin();
    }
    r.seed = session.seed();
    r.device = session.device().name;
    bool faulted = false;
    auto profile = collectStallProfile(r, request.value("period", 0), &faulted);
    if (!profile)
        return protocol::makeErrorResponse(request, "failed", faulted ? failure::kFault : failure::kError,
                                           profile.message());
    json resp = protocol::makeResponse(request, "ok");
    resp["source"] = toJson(FigureSource{r.device, FigureKind::CuptiPcSampling});
    resp["profile"] = toJson(profile.value());
    return resp;
}

json metrics(GpuSession& session, const json& request)
{
    const LaunchSpec* spec = session.spec();
    if (!spec)
        return protocol::makeErrorResponse(request, "error", failure::kError, "metrics before load_baseline");
    MetricsRequest r;
    auto backend = parseEnumOrError(kMetricsBackendNames, request.value("backend", std::string("auto")),
                                    "the metrics backend");
    if (!backend) return protocol::makeErrorResponse(request, "error", failure::kError, backend.message());
    r.backend = *backend;
    r.runner = selfExecutable();
    r.spec = *spec;
    if (request.contains("cubin_b64") || request.contains("cubin_path")) {
        auto cubin = protocol::cubinFromRequest(request);
        if (!cubin) return protocol::makeErrorResponse(request, "failed", failure::kLoad, cubin.message());
        r.cubin = std::move(cubin.value());
    } else {
        r.cubin = session.baselineCubin();
    }
    r.seed = session.seed();
    if (request.contains("metrics") && request.at("metrics").is_array())
        r.metrics = request.at("metrics").get<std::vector<std::string>>();
    r.device = session.device().name;
    auto report = collectMetrics(r);
    if (!report) return protocol::makeErrorResponse(request, "failed", failure::kError, report.message());
    json resp = protocol::makeResponse(request, "ok");
    resp["source"] = toJson(FigureSource{r.device, figureKindOf(report->backend)});
    resp["backend"] = metricsBackendName(report->backend);
    if (!report->fallback.empty()) resp["fallback"] = report->fallback;
    if (report->passes) resp["passes"] = report->passes;
    resp["metrics"] = json::array();
    for (const MetricValue& m : report->values)
        resp["metrics"].push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}});
    return resp;
}

} // namespace

int runWorker(int argc, char** argv)
{
    int device = 0;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--oneshot")) return oneshot(argc, argv, i + 1);
        if (!std::strcmp(argv[i], "--cupti-oneshot")) return cuptiOneshot(argc, argv, i + 1);
        if (!std::strcmp(argv[i], "--pcsample-oneshot")) return pcSampleOneshot(argc, argv, i + 1);
        if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
            device = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: sassx-worker [--device N] | --oneshot SPEC CUBIN SEED | "
                                 "--cupti-oneshot SPEC CUBIN SEED METRICS | "
                                 "--pcsample-oneshot SPEC CUBIN SEED PERIOD\n");
            return 2;
        }
    }
    // Results are the only thing on stdout; anything a library prints goes to stderr.
    std::ios::sync_with_stdio(true);

    std::unique_ptr<GpuSession> session;
    std::string openError;
    if (auto ctx = GpuContext::open(device))
        session = std::make_unique<GpuSession>(std::move(ctx.value()));
    else
        openError = ctx.message();

    json ready{{"event", "ready"}, {"version", protocol::kVersion}, {"pid", int(getpid())}};
    if (session) {
        ready["device"] = session->device().name;
        ready["sm"] = session->device().sm;
    } else {
        ready["error"] = openError;
    }
    send(ready);

    std::string line;
    RequestLines requests;
    while (requests.next(line)) {
        if (line.empty()) continue;
        auto parsed = protocol::parseLine(line);
        if (!parsed) {
            send(protocol::makeErrorResponse(json::object(), "error", failure::kProtocol, parsed.message()));
            continue;
        }
        const json& request = parsed.value();
        const std::string op = request.value("op", std::string());
        if (op == "shutdown") {
            send(protocol::makeResponse(request, "ok"));
            break;
        }
        if (op == "hello") {
            json r = protocol::makeResponse(request, session ? "ok" : "error");
            r["version"] = protocol::kVersion;
            if (session)
                r["device"] = {{"name", session->device().name},
                               {"sm", session->device().sm},
                               {"multiprocessors", session->device().multiprocessors},
                               {"l2_bytes", session->device().l2Bytes}};
            else
                r["error"] = openError;
            send(r);
            continue;
        }
        if (!session) {
            send(protocol::makeErrorResponse(request, "error", failure::kError, openError));
            continue;
        }
        json response;
        if (op == "load_baseline")
            response = session->loadBaseline(request);
        else if (op == "evaluate")
            response = session->evaluate(request);
        else if (op == "metrics")
            response = metrics(*session, request);
        else if (op == "pc_sample")
            response = pcSample(*session, request);
        else
            response =
                protocol::makeErrorResponse(request, "error", failure::kError, "unknown op \"" + op + "\"");
        send(response);
        if (session->contextLost()) {
            // The context is dead (sticky error): no further work can run in this process. Exit
            // without destructors (driver calls on a dead context can block) so the pool restarts us.
            std::fflush(stdout);
            _exit(3);
        }
    }
    return 0;
}

} // namespace sassx::eval
