#include "core/eval/protocol.h"

#include "core/eval/base64.h"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace sassx::eval::protocol {

using nlohmann::json;

json makeHello(int id)
{
    return {{"op", "hello"}, {"id", id}, {"version", kVersion}};
}

json makeLoadBaseline(int id, const LaunchSpec& spec, std::span<const uint8_t> cubin,
                      const BaselineOptions& o)
{
    return {{"op", "load_baseline"},
            {"id", id},
            {"spec", toJson(spec)},
            {"cubin_b64", base64Encode(cubin)},
            {"seed", o.seed},
            {"input_sets", o.inputSets},
            {"noise_rounds", o.noiseRounds},
            {"noise_twins", o.noiseTwins},
            {"noise_twin_rounds", o.noiseTwinRounds},
            {"l2_flush", o.l2Flush},
            {"graph", graphUseName(o.graph)},
            {"graph_below_us", o.graphBelowUs},
            {"min_sample_us", o.minSampleUs},
            {"warmup", o.warmup}};
}

namespace {
json evaluateBody(int id, const EvaluateOptions& o)
{
    json j{{"op", "evaluate"},
           {"id", id},
           {"screen_rounds", o.plan.screenRounds},
           {"confirm_rounds", o.plan.confirmRounds},
           {"incumbent_ratio", o.plan.incumbentRatio},
           {"confirm_stage", o.plan.confirmStage},
           {"instances", o.plan.instances},
           {"futility_after", o.plan.futilityAfter},
           {"check_only", o.checkOnly}};
    if (o.race.enabled()) j["race"] = toJson(o.race);
    return j;
}
} // namespace

json makeEvaluate(int id, std::span<const uint8_t> cubin, const EvaluateOptions& o)
{
    json j = evaluateBody(id, o);
    j["cubin_b64"] = base64Encode(cubin);
    return j;
}

json makeEvaluatePath(int id, const std::string& cubinPath, const EvaluateOptions& o)
{
    json j = evaluateBody(id, o);
    j["cubin_path"] = cubinPath;
    return j;
}

json makeMetrics(int id, std::span<const uint8_t> cubin, const std::vector<std::string>& metrics,
                 MetricsBackend backend)
{
    json j{{"op", "metrics"}, {"id", id}, {"metrics", metrics}, {"backend", metricsBackendName(backend)}};
    if (!cubin.empty()) j["cubin_b64"] = base64Encode(cubin);
    return j;
}

json makePcSample(int id, std::span<const uint8_t> cubin, int period)
{
    json j{{"op", "pc_sample"}, {"id", id}, {"period", period}};
    if (!cubin.empty()) j["cubin_b64"] = base64Encode(cubin);
    return j;
}

json makeShutdown(int id)
{
    return {{"op", "shutdown"}, {"id", id}};
}

std::string encodeLine(const json& message)
{
    // dump() escapes control characters, so the line can never contain a raw newline.
    std::string s = message.dump(-1, ' ', false, json::error_handler_t::replace);
    s += '\n';
    return s;
}

Result<json> parseLine(std::string_view line)
{
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.remove_suffix(1);
    json j = json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded()) return makeError("protocol: line is not JSON");
    if (!j.is_object()) return makeError("protocol: line is not a JSON object");
    return j;
}

void setReference(json& request, std::span<const uint8_t> reference)
{
    if (!reference.empty()) request["reference_b64"] = base64Encode(reference);
}

Result<std::vector<uint8_t>> referenceFromRequest(const json& r)
{
    if (!r.contains("reference_b64")) return std::vector<uint8_t>{};
    if (!r.at("reference_b64").is_string()) return makeError("protocol: reference_b64 is not a string");
    auto bytes = base64Decode(r.at("reference_b64").get_ref<const std::string&>());
    if (!bytes) return makeError("protocol: reference_b64: " + bytes.message());
    return bytes;
}

Result<std::vector<uint8_t>> cubinFromRequest(const json& r)
{
    if (r.contains("cubin_b64") && r.at("cubin_b64").is_string()) {
        auto bytes = base64Decode(r.at("cubin_b64").get_ref<const std::string&>());
        if (!bytes) return makeError("protocol: cubin_b64: " + bytes.message());
        return bytes;
    }
    if (r.contains("cubin_path") && r.at("cubin_path").is_string()) {
        const std::string path = r.at("cubin_path").get<std::string>();
        std::ifstream in(path, std::ios::binary);
        if (!in) return makeError("cannot read cubin " + path);
        return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
    }
    return makeError("protocol: request has neither cubin_b64 nor cubin_path");
}

BaselineOptions baselineOptionsFromJson(const json& r)
{
    BaselineOptions o;
    o.seed = r.value("seed", o.seed);
    o.inputSets = std::max(1, r.value("input_sets", o.inputSets));
    o.noiseRounds = std::max(0, r.value("noise_rounds", o.noiseRounds));
    o.noiseTwins = std::max(0, r.value("noise_twins", o.noiseTwins));
    o.noiseTwinRounds = std::max(2, r.value("noise_twin_rounds", o.noiseTwinRounds));
    o.l2Flush = r.value("l2_flush", o.l2Flush);
    o.graph = parseGraphUse(r.value("graph", std::string(graphUseName(o.graph)))).value_or(o.graph);
    o.graphBelowUs = r.value("graph_below_us", o.graphBelowUs);
    o.minSampleUs = r.value("min_sample_us", o.minSampleUs);
    o.warmup = std::max(0, r.value("warmup", o.warmup));
    return o;
}

EvaluateOptions evaluateOptionsFromJson(const json& r)
{
    EvaluateOptions o;
    o.plan.screenRounds = std::max(2, r.value("screen_rounds", o.plan.screenRounds));
    o.plan.confirmRounds = std::max(0, r.value("confirm_rounds", o.plan.confirmRounds));
    o.plan.incumbentRatio = r.value("incumbent_ratio", o.plan.incumbentRatio);
    o.plan.confirmStage = std::max(0, r.value("confirm_stage", o.plan.confirmStage));
    o.plan.instances = std::clamp(r.value("instances", o.plan.instances), 1, 64);
    o.plan.futilityAfter = std::max(2, r.value("futility_after", o.plan.futilityAfter));
    o.checkOnly = r.value("check_only", o.checkOnly);
    if (r.contains("race")) o.race = racePlanFromJson(r.at("race"));
    return o;
}

json makeResponse(const json& request, const std::string& status)
{
    json j{{"status", status}};
    if (request.is_object()) {
        if (request.contains("id")) j["id"] = request.at("id");
        if (request.contains("op")) j["op"] = request.at("op");
    }
    return j;
}

json makeErrorResponse(const json& request, const std::string& status, const std::string& failureKind,
                       const std::string& message)
{
    json j = makeResponse(request, status);
    j["failure_kind"] = failureKind;
    j["error"] = message;
    return j;
}

} // namespace sassx::eval::protocol
