#include "core/eval/worker_server.h"

#include "core/eval/eval_result.h"
#include "core/eval/gpu_session.h"
#include "core/eval/ncu_metrics.h"
#include "core/eval/protocol.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

namespace sassx::eval {

using nlohmann::json;

namespace {

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

json metrics(GpuSession& session, const json& request)
{
    const LaunchSpec* spec = session.spec();
    if (!spec)
        return protocol::makeErrorResponse(request, "error", failure::kError, "metrics before load_baseline");
    NcuRequest r;
    r.ncu = findNcu();
    char self[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    r.runner = n > 0 ? std::string(self, size_t(n)) : std::string("sassx-worker");
    r.spec = *spec;
    if (request.contains("cubin_b64") || request.contains("cubin_path")) {
        auto cubin = protocol::cubinFromRequest(request);
        if (!cubin) return protocol::makeErrorResponse(request, "failed", failure::kLoad, cubin.message());
        r.cubin = std::move(cubin.value());
    } else {
        r.cubin = session.baselineCubin();
    }
    r.seed = session.seed();
    if (request.contains("metrics") && request.at("metrics").is_array() && !request.at("metrics").empty())
        r.metrics = request.at("metrics").get<std::vector<std::string>>();
    else
        r.metrics = defaultMetrics();
    r.device = session.device().name;
    auto values = collectWithNcu(r);
    if (!values) return protocol::makeErrorResponse(request, "failed", failure::kError, values.message());
    json resp = protocol::makeResponse(request, "ok");
    resp["source"] = {{"device", r.device}, {"kind", "ncu"}};
    resp["metrics"] = json::array();
    for (const MetricValue& m : values.value())
        resp["metrics"].push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}});
    return resp;
}

} // namespace

int runWorker(int argc, char** argv)
{
    int device = 0;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--oneshot")) return oneshot(argc, argv, i + 1);
        if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
            device = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: sassx-worker [--device N] | --oneshot SPEC CUBIN SEED\n");
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
    while (std::getline(std::cin, line)) {
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
