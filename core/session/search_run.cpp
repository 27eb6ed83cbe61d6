#include "core/session/search_run.h"

#include "core/session/kernel_stalls.h"
#include "core/session/search_policy.h"

#include "core/common/atomic_file.h"
#include "core/common/text_format.h"
#include "core/eval/speedup.h"
#include "core/rewrite/diff_export.h"
#include "core/rewrite/edit_compaction.h"
#include "core/rewrite/schedule_diff.h"
#include "core/search/search_state_writer.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sassx {

namespace fs = std::filesystem;
using search::SearchState;
using search::SpeedupFigures;

namespace {

std::string pct(double ratioUnits)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.2f%%", ratioUnits * 100.0);
    return b;
}

// "1.0123× [1.0101, 1.0150]"; the summary names the noise floor itself.
std::string speedupText(const SpeedupFigures& f)
{
    eval::Speedup s{f.speedup, std::nullopt, 0.0, false};
    if (f.rounds > 0) s.interval = eval::SpeedupInterval{f.low, f.high};
    return s.fullText();
}

// What a checkpoint belongs to: the kernel's name and a hash of its code (FNV-1a over .text).
nlohmann::json kernelIdentity(const KernelWorkspace& k)
{
    uint64_t h = 1469598103934665603ull;
    if (const Kernel* kernel = k.cubin().findKernel(k.name()))
        for (uint8_t b : k.cubin().sectionData(kernel->textSection)) {
            h ^= b;
            h *= 1099511628211ull;
        }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    return {{"name", k.name()}, {"code_fnv1a", hex}};
}

Status checkIdentity(const std::string& dir, const nlohmann::json& identity)
{
    std::ifstream in((fs::path(dir) / "checkpoint.json").string());
    const nlohmann::json saved = nlohmann::json::parse(in, nullptr, false).value("kernel", nlohmann::json());
    if (saved.is_null()) return Ok{}; // written before checkpoints named their kernel
    if (saved != identity)
        return makeError("the checkpoint in " + dir + " is a search of kernel '" + saved.value("name", "?") +
                         "' (code " + saved.value("code_fnv1a", "?") + "), not of '" +
                         identity.value("name", "?") + "' (code " + identity.value("code_fnv1a", "?") +
                         "): resume it with that kernel's spec");
    return Ok{};
}

} // namespace

SearchRun::SearchRun(std::shared_ptr<const KernelWorkspace> kernel, eval::LaunchSpec spec,
                     EvaluatorChoice choice, EvaluatorOptions evaluatorOptions)
    : m_kernelEvaluator(std::move(kernel), std::move(choice), std::move(spec)),
      m_evaluatorOptions(std::move(evaluatorOptions))
{
}

SearchRun::~SearchRun() = default;

Status SearchRun::prepare()
{
    return m_kernelEvaluator.prepare();
}

search::SearchConfig SearchRun::resolvedConfig(search::SearchConfig config) const
{
    config.resolveSpace(choice().backend == eval::Backend::Gpu);
    return config;
}

Result<SearchState> readSearchCheckpoint(const std::string& dir)
{
    const std::string path = (fs::path(dir) / "checkpoint.json").string();
    std::ifstream in(path);
    if (!in) return makeError("no checkpoint to resume in " + dir + " (" + path + " is missing)");
    try {
        return search::searchStateFromJson(nlohmann::json::parse(in));
    } catch (const std::exception& e) {
        return makeError(path + " is not JSON: " + e.what());
    }
}

Result<SearchReport> SearchRun::run(const SearchRunOptions& options, const search::SearchCallbacks& callbacks)
{
    std::error_code ec;
    fs::create_directories(options.outDir, ec);
    if (ec) return makeError("cannot create " + options.outDir + ": " + ec.message());
    if (!kernel().editRefusal().empty()) return makeError(kernel().editRefusal());
    // The control rules decode their batch of edited words with several nvdisasm processes at once;
    // do it before the evaluator measures the baseline and its noise floor, which it must not disturb.
    kernel().checker().controlRules().primeEncodings();
    if (Status s = prepare(); !s) return s.error();
    SearchEvaluator evaluator(m_kernelEvaluator, options.plan);
    search::SearchEngine engine(kernel().checker(), evaluator);
    const nlohmann::json identity = kernelIdentity(kernel());
    if (options.resume) {
        auto state = readSearchCheckpoint(options.outDir);
        if (!state) return state.error();
        if (Status s = readPolicy(options.outDir, *state); !s) return s.error();
        if (state->config.algorithm == search::Algorithm::Ppo) {
            auto agent = makeSearchAgent(state->config, {});
            if (!agent) return agent.error();
            engine.setAgent(std::move(*agent));
        }
        if (state->config.guide == search::ProposalGuide::Stalls) {
            auto weights = guideWeights(options);
            if (!weights) return weights.error();
            engine.setGuide(std::move(*weights));
        }
        // Edits are positions in one kernel's code: replaying them on another would be meaningless.
        if (Status s = checkIdentity(options.outDir, identity); !s) return s.error();
        if (Status s =
                engine.resume(std::move(*state), options.config.budgetEvals, options.config.budgetSeconds);
            !s)
            return s.error();
    } else {
        if (options.config.guide == search::ProposalGuide::Stalls) {
            auto weights = guideWeights(options);
            if (!weights) return weights.error();
            engine.setGuide(std::move(*weights));
        }
        if (options.config.algorithm == search::Algorithm::Ppo) {
            auto agent = makeSearchAgent(options.config, options.policyPath);
            if (!agent) return agent.error();
            engine.setAgent(std::move(*agent));
        }
        // A resumed run keeps the space it started with; a fresh one resolves --space auto here.
        if (Status s = engine.start(resolvedConfig(options.config)); !s) return s.error();
    }
    std::string checkpointError;
    search::SearchCallbacks cb = callbacks;
    search::SearchStateWriter writer; // the history's text, kept between checkpoints
    cb.onCheckpoint = [&](const SearchState& s) {
        // The history and the policy first, then the checkpoint that refers to them: a kill between
        // leaves a checkpoint no newer than its history. The policy only changes at an update, and the
        // checkpoint's rollout starts there.
        Status h =
            writeFileAtomically((fs::path(options.outDir) / "history.csv").string(), writer.historyCsv(s));
        if (Status p = writePolicy(options.outDir, s); !p) checkpointError = p.message();
        Status c = writeFileAtomically((fs::path(options.outDir) / "checkpoint.json").string(),
                                       writer.checkpointJson(s, {{"kernel", identity}}));
        if (!h) checkpointError = h.message();
        if (!c) checkpointError = c.message();
        if (callbacks.onCheckpoint) callbacks.onCheckpoint(s);
    };
    const SearchState& state = engine.run(cb, options.control);
    if (!checkpointError.empty()) return makeError(checkpointError);
    return finish(options, state, callbacks.onPhase, engine.timeSplit());
}

nlohmann::json SearchRun::verifyOnFreshInputs(const std::vector<uint8_t>& bytes) const
{
    EvaluatorOptions o = m_evaluatorOptions;
    o.backend = eval::Backend::Gpu;
    o.seed = m_evaluatorOptions.seed ^ 0x9E3779B97F4A7C15ull; // inputs the search never saw
    nlohmann::json j{{"input_seed", o.seed}, {"input_sets", o.inputSets}};
    auto choice = makeEvaluator(o);
    if (!choice) {
        j["correct"] = nullptr;
        j["failure"] = "could not start a verifier: " + choice.message();
        return j;
    }
    KernelEvaluator verifier(m_kernelEvaluator.kernelPtr(), *choice, m_kernelEvaluator.spec());
    MeasureOptions mo;
    mo.eval.checkOnly = true;
    auto r = verifier.measureCubin(bytes, mo);
    j["correct"] = r && r->ok();
    if (!r)
        j["failure"] = r.message();
    else if (!r->ok())
        j["failure"] = r->failureKind + ": " + r->failure;
    return j;
}

Result<std::vector<double>> SearchRun::guideWeights(const SearchRunOptions& options)
{
    const KernelWorkspace& k = kernel();
    const fs::path kept = fs::path(options.outDir) / "stalls.json";
    std::error_code ec;
    const std::string path = fs::exists(kept, ec) ? kept.string() : options.stallsPath;
    Result<eval::StallProfile> profile = makeError("no samples");
    if (!path.empty()) {
        profile = readStallProfile(path);
        if (!profile) return profile.error();
    } else {
        profile = m_kernelEvaluator.stalls(Schedule::identity(k.analysis()));
        if (!profile)
            return makeError("a stall-guided search needs samples of the original: " + profile.message() +
                             " (or give them with --stalls FILE)");
    }
    if (profile->kernel != k.name())
        return makeError("the stall samples are of kernel '" + profile->kernel + "', not '" + k.name() + "'");
    const Schedule identity = Schedule::identity(k.analysis());
    auto mapped = mapStalls(*profile, k.analysis(), identity);
    if (!mapped) return mapped.error();
    if (!fs::exists(kept, ec))
        if (Status s = writeFileAtomically(kept.string(), eval::toJson(*profile).dump() + "\n"); !s)
            return s.error();
    m_guideInfo = {{"kind", search::guideName(search::ProposalGuide::Stalls)},
                   {"samples", mapped->samples},
                   {"source", profile->source.label()},
                   {"period_exponent", profile->periodExponent},
                   {"file", kept.string()}};
    return stallGuideWeights(*mapped, k.analysis());
}

Result<SearchReport> SearchRun::finish(const SearchRunOptions& options, const SearchState& state,
                                       const std::function<void(const std::string&)>& phase,
                                       const search::SearchTimeSplit& split)
{
    const KernelWorkspace& k = kernel();
    auto edits = state.editsOf(state.best);
    auto schedule = k.schedule(edits);
    if (!schedule) return makeError("the best variant does not replay: " + schedule.message());
    // The walk's chain of edits, shortened to the list that reaches the same schedule.
    if (auto shorter = compactEdits(k.analysis(), *schedule, [&k](Schedule& x) { k.checker().fixReuse(x); }))
        edits = std::move(*shorter);

    // The reported figure is always a fresh measurement of the best, never the search's own.
    SpeedupFigures final;
    SearchEvaluator evaluator(m_kernelEvaluator, options.plan);
    if (state.best >= 0) {
        if (phase) phase("re-measuring the best");
        search::EvalRequest request{1.0, true};
        request.report = true;
        auto r = evaluator.evaluate({*schedule}, request);
        final = search::speedupFigures(r.at(0));
    }
    const bool improved = state.best >= 0 && final.clearlyAbove(1.0);
    std::vector<uint8_t> bytes = k.cubin().bytes();
    Schedule written = Schedule::identity(k.analysis());
    if (improved) {
        auto built = k.write(*schedule);
        if (!built) return makeError("the best variant cannot be written: " + built.message());
        bytes = std::move(*built);
        written = *schedule;
    }
    nlohmann::json verification{{"correct", nullptr}};
    if (!improved) {
        verification["note"] = "nothing to verify: best.cubin is the original";
    } else if (choice().backend != eval::Backend::Gpu) {
        verification["note"] = "unverified: the estimate backend runs nothing";
    } else if (options.verifyFreshInputs) {
        if (phase) phase("verifying on fresh inputs");
        verification = verifyOnFreshInputs(bytes);
    }

    const fs::path dir(options.outDir);
    SearchReport report;
    report.improved = improved;
    report.bestCubinPath = (dir / "best.cubin").string();
    report.reportPath = (dir / "report.json").string();
    report.diffPath = (dir / "diff.html").string();
    report.historyPath = (dir / "history.csv").string();

    auto diff = diffSchedules(
        DiffSide::fromListing(k.analysis().listing, "original"),
        DiffSide::fromSchedule(k.analysis(), written, improved ? "best" : "best (original)"), k.name());
    if (!diff) return makeError("cannot diff the best variant: " + diff.message());

    const auto& baseline = *m_kernelEvaluator.baseline();
    nlohmann::json editList = nlohmann::json::array();
    for (const Edit& e : improved ? edits : std::vector<Edit>{})
        editList.push_back(e.describe());
    const double floor = baseline.noiseFloor;
    char tail[200];
    std::snprintf(tail, sizeof tail, " after %lld evaluations in %.1f s (%.1f/s)",
                  (long long)state.evaluations(), state.seconds,
                  state.seconds > 0 ? double(state.evaluations()) / state.seconds : 0.0);
    const std::string src = (final.source.empty() ? baseline.source : final.source).label();
    if (improved) {
        const std::string noise = choice().backend == eval::Backend::Gpu ? "; noise floor " + pct(floor) : "";
        report.summary = "best " + speedupText(final) + " (" + src + noise + ")" + tail;
        if (choice().backend != eval::Backend::Gpu) report.summary += " — an estimate, not a measurement";
    } else if (state.best >= 0) {
        report.summary = "nothing beat the original: the best candidate re-measured " + speedupText(final) +
                         ", inside the noise floor of " + pct(floor) + tail;
    } else if (state.legalAtStart == 0) {
        report.summary =
            "the " + search::spaceName(state.config.space) +
            " space offers no legal edit on this kernel (sassx-cli legal says why): nothing to search";
    } else {
        report.summary = choice().backend == eval::Backend::Gpu
                             ? "nothing beat the original beyond the noise floor (" + pct(floor) + ")" + tail
                             : "nothing beat the original (" + src + ")" + tail;
    }
    // How the run ended, when not simply by its budget: a stopped run is not a finished one, and a climb
    // that restarted says when it converged.
    const std::string ended = search::stopDescription(state);
    using search::StopReason;
    if (state.stopReason == StopReason::Stopped || state.stopReason == StopReason::Converged ||
        state.stopReason == StopReason::Exhausted || state.restarts() > 0)
        report.summary += "; " + ended;
    // Without a GPU, say what the estimate could not see (docs/search.md).
    const std::string blind = choice().backend == eval::Backend::Gpu
                                  ? std::string()
                                  : search::estimateBlindSpot(state.config.space);
    if (!blind.empty()) report.summary += "; note: " + blind;

    report.json = {
        {"tool", "sassx-cli search"},
        {"date", utcNowIso8601()},
        {"kernel", k.name()},
        {"spec", m_kernelEvaluator.spec().name},
        {"config", search::toJson(state.config)},
        {"evaluator",
         {{"backend", eval::backendName(choice().backend)},
          {"reason", choice().reason},
          {"parallelism", evaluator.parallelism()},
          {"blind_spot", blind}}},
        {"device", baseline.source.device},
        {"baseline",
         {{"median_us", baseline.medianUs}, {"noise_floor", floor}, {"source", baseline.source.label()}}},
        {"evaluations", state.evaluations()},
        {"seconds", state.seconds},
        {"evaluations_per_second", state.seconds > 0 ? double(state.evaluations()) / state.seconds : 0.0},
        {"time_to_best_s", state.best >= 0 ? state.timeToBest : 0.0},
        {"time_split", search::toJson(split, evaluator.parallelism())},
        {"stop_reason", state.stopReason ? search::stopReasonName(*state.stopReason) : std::string()},
        {"stop_detail", ended},
        {"space",
         {{"used", search::spaceName(state.config.space)},
          {"requested", state.config.spaceRequested()},
          {"why", state.config.spaceReason()}}},
        {"finished", state.finished},
        {"legal_edits_at_start", state.legalAtStart},
        {"refused_by_check", state.refusedByCheck},
        {"improved", improved},
        {"best",
         {{"step", state.best},
          {"search_speedup", state.bestSpeedup},
          {"final", state.best >= 0 ? search::toJson(final)
                                    : nlohmann::json{{"speedup", 1.0}, {"note", "the original"}}},
          {"edits", editList},
          {"moved", diff->movedCount()},
          {"control_changed", diff->controlChangedCount()}}},
        {"verification", verification},
        {"summary", report.summary},
        {"speedup_convention", "> 1 = faster (original time / variant time)"}};
    report.json["guide"] = m_guideInfo.is_null()
                               ? nlohmann::json{{"kind", search::guideName(search::ProposalGuide::Uniform)}}
                               : m_guideInfo;
    if (auto agent = agentReport(options.outDir, state, options.policyPath); !agent.is_null())
        report.json["ppo"] = agent;
    if (options.sampleBest) {
        // Where the best variant's warps wait: attached to the run, never a reason for it to fail.
        auto best = m_kernelEvaluator.stalls(*schedule);
        if (best) {
            if (Status s = writeFileAtomically((dir / "best.stalls.json").string(),
                                               eval::toJson(*best).dump() + "\n");
                !s)
                return s.error();
            report.json["best_stalls"] = (dir / "best.stalls.json").string();
        } else {
            report.json["best_stalls_error"] = best.message();
        }
    }

    Variant best;
    best.name = "search best";
    best.kernel = k.name();
    best.edits = improved ? edits : std::vector<Edit>{};
    const std::string bytesStr(bytes.begin(), bytes.end());
    for (const auto& [name, text] : {std::pair<std::string, std::string>{"best.cubin", bytesStr},
                                     {"best.json", best.toJson().dump(2) + "\n"},
                                     {"history.csv", search::SearchStateWriter().historyCsv(state)},
                                     {"report.json", report.json.dump(2) + "\n"},
                                     {"diff.html", diffToHtml(*diff)}})
        if (Status s = writeFileAtomically((dir / name).string(), text); !s) return s.error();
    return report;
}

Result<std::unique_ptr<SearchRun>> openSearchRun(const std::string& specPath, const WorkspaceOptions& options)
{
    auto spec = eval::loadLaunchSpec(specPath);
    if (!spec) return spec.error();
    if (spec->cubinPath().empty()) return makeError("the spec names no \"cubin\" for the original");
    auto ws = Workspace::open(spec->cubinPath(), options);
    if (!ws) return makeError("the original cubin: " + ws.message());
    auto kernel = (*ws)->kernel(spec->kernel);
    if (!kernel) return kernel.error();
    if (!(*kernel)->editRefusal().empty()) return makeError((*kernel)->editRefusal());
    auto choice = makeEvaluator(options.evaluator);
    if (!choice) return choice.error();
    auto run = std::make_unique<SearchRun>(*kernel, *spec, *choice, options.evaluator);
    if (Status s = run->prepare(); !s) return s.error();
    return run;
}

} // namespace sassx
