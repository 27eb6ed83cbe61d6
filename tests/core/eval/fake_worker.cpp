// A stand-in for sassx-worker that misbehaves on request, to test the pool's deadlines and
// restarts without a GPU. An evaluate request's "fake" field picks the behaviour:
//   ok (default), crash (abort before answering), hang (never answer), garbage (a non-JSON line),
//   fault (answer status "fault" then exit 3), slow:MS (answer after MS milliseconds).
// FAKE_WORKER_START=crash makes it die before "ready"; =nogpu makes ready carry an error.
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

using nlohmann::json;

static void send(const json& j)
{
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

int main()
{
    const char* start = std::getenv("FAKE_WORKER_START");
    const std::string mode = start ? start : "";
    if (mode == "crash") std::abort();
    const char* gpu = std::getenv("CUDA_VISIBLE_DEVICES");
    json ready{
        {"event", "ready"}, {"pid", int(getpid())}, {"device", std::string("fake GPU ") + (gpu ? gpu : "?")}};
    if (mode == "nogpu") ready["error"] = "no CUDA driver: cannot load libcuda.so.1";
    std::fputs("some library chatter on stderr\n", stderr);
    send(ready);
    std::string line;
    int loads = 0;
    while (std::getline(std::cin, line)) {
        json r = json::parse(line, nullptr, false);
        if (r.is_discarded()) continue;
        json resp{{"id", r.value("id", -1)}, {"op", r.value("op", "")}, {"status", "ok"}};
        resp["source"] = {{"device", ready["device"]}, {"kind", "measured"}};
        const std::string op = r.value("op", "");
        if (op == "shutdown") {
            send(resp);
            return 0;
        }
        if (op == "load_baseline") {
            ++loads;
            resp["noise_floor"] = r.contains("noise_floor") ? r["noise_floor"].get<double>() : 0.004;
            resp["baseline_median_us"] = 10.0;
            resp["replayed"] = r.value("noise_rounds", 30) == 0;
            if (r.value("fail", false)) {
                resp["status"] = "error";
                resp["error"] = "baseline output C has 3 NaN element(s)";
            }
            send(resp);
            continue;
        }
        const std::string fake = r.value("fake", "ok");
        if (fake == "crash") {
            std::fputs("fake worker: simulated crash\n", stderr);
            std::abort();
        }
        if (fake == "hang") {
            while (true)
                std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        if (fake == "garbage") {
            std::printf("this is not json\n");
            std::fflush(stdout);
            continue;
        }
        if (fake == "fault") {
            resp["status"] = "fault";
            resp["failure_kind"] = "fault";
            resp["error"] = "kernel execution: CUDA_ERROR_ILLEGAL_ADDRESS (700)";
            send(resp);
            _exit(3);
        }
        if (fake.rfind("slow:", 0) == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(fake.c_str() + 5)));
        resp["correct"] = true;
        resp["loads"] = loads;
        resp["pid"] = int(getpid());
        resp["echo"] = r.value("tag", 0);
        send(resp);
    }
    return 0;
}
