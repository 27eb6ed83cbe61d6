#include "stalls_command.h"

#include "cli_workspace.h"
#include "commands.h"

#include "core/session/annotation_json.h"
#include "core/session/evaluator_options.h"
#include "core/session/kernel_evaluator.h"
#include "core/session/kernel_stalls.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

using namespace sassx;
using namespace sassx::eval;
using nlohmann::json;

namespace {

struct StallsArgs
{
    std::string spec;
    std::string cubin;           // empty: the spec's own
    std::string period = "auto"; // or 5..31: a sample every 2^N cycles
    int top = 20;
    bool json = false;
    WorkspaceArgs workspace;
    EvaluatorArgs evaluator;
};

// --period: 0 for auto, else the exponent; nullopt when it is neither.
std::optional<int> periodExponent(const std::string& text)
{
    if (text == "auto") return 0;
    int n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || end != text.data() + text.size() || n < 5 || n > 31) return std::nullopt;
    return n;
}

std::string reasonsText(const InstructionStalls& s, size_t words)
{
    std::string out;
    for (size_t i = 0; i < s.byWord.size() && i < words; ++i) {
        const double share = s.samples ? 100.0 * double(s.byWord[i].second) / double(s.samples) : 0.0;
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%s %.0f%%", out.empty() ? "" : ", ", s.byWord[i].first.c_str(),
                      share);
        out += buf;
    }
    return out;
}

void printText(const StallProfile& p, const KernelStalls& k, const KernelAnalysis& a, const Schedule& s,
               const std::string& candidate, int top)
{
    const std::string src = "[measured: " + p.source.label() + "]";
    std::printf("kernel       %s  (%s)\n", p.kernel.c_str(), candidate.c_str());
    std::printf(
        "sampling     one launch, a sample per SM every 2^%d = %llu cycles; %llu samples on the kernel, "
        "%llu elsewhere, %llu dropped  %s\n",
        p.periodExponent, 1ull << p.periodExponent, (unsigned long long)k.samples,
        (unsigned long long)p.otherSamples, (unsigned long long)p.droppedSamples, src.c_str());
    std::printf("duration     %.3f us/launch unsampled (median of 5), %.3f us the sampled launch  %s\n",
                p.durationUs, p.sampledLaunchUs, src.c_str());
    for (const std::string& w : p.warnings)
        std::printf("warning      %s\n", w.c_str());
    std::printf("\nwhere the kernel's samples are, by reason:\n");
    for (const auto& [word, n] : k.byWord)
        std::printf("  %-16s %6.2f%%  %llu\n", word.c_str(),
                    k.samples ? 100.0 * double(n) / double(k.samples) : 0.0, (unsigned long long)n);
    std::printf("\nblocks with the most samples:\n");
    std::vector<size_t> blocks;
    for (size_t b = 0; b < k.byBlock.size(); ++b)
        if (k.byBlock[b]) blocks.push_back(b);
    std::sort(blocks.begin(), blocks.end(), [&](size_t x, size_t y) { return k.byBlock[x] > k.byBlock[y]; });
    for (size_t i = 0; i < blocks.size() && i < 8; ++i)
        std::printf("  block %-4zu at %04x  %6.2f%%\n", blocks[i], a.cfg.blocks[blocks[i]].first * 16,
                    100.0 * double(k.byBlock[blocks[i]]) / double(k.samples));
    std::printf("\ninstructions with the most samples (address in this variant, original index):\n");
    std::vector<Position> positions;
    for (Position pos : s.positions())
        if (k.byOriginal[s.order[pos]].samples) positions.push_back(pos);
    std::sort(positions.begin(), positions.end(), [&](Position x, Position y) {
        return k.byOriginal[s.order[x]].samples > k.byOriginal[s.order[y]].samples;
    });
    for (size_t i = 0; i < positions.size() && int(i) < top; ++i) {
        const InstrId orig = s.order[positions[i]];
        std::printf(
            "  %04x  #%-5u %6.2f%%  %-44s  %s\n", positions[i].value() * 16, orig.value(),
            100.0 * k.share(orig),
            instructionText(a.listing.instructions[orig.value()], s.control[orig]).substr(0, 44).c_str(),
            reasonsText(k.byOriginal[orig], 3).c_str());
    }
}

int runStalls(const StallsArgs& args)
{
    const std::optional<int> period = periodExponent(args.period);
    if (!period) return fail("--period takes auto or 5..31 (2^N cycles), not '" + args.period + "'");
    auto spec = loadLaunchSpec(args.spec);
    if (!spec) return fail(spec.message());
    auto evalOptions = evaluatorOptions(args.evaluator);
    if (!evalOptions) return fail(evalOptions.message());
    if (spec->cubinPath().empty()) return fail("the spec names no \"cubin\" for the original");
    const std::string candidatePath = args.cubin.empty() ? spec->cubinPath() : args.cubin;
    std::vector<uint8_t> candidate;
    if (!readFileBytes(candidatePath, candidate)) return fail("cannot read " + candidatePath);
    auto ws = Workspace::open(spec->cubinPath(), workspaceOptions(args.workspace));
    if (!ws) return fail("the original cubin: " + ws.message());
    auto kernel = (*ws)->kernel(spec->kernel);
    if (!kernel) return fail(kernel.message());
    const KernelAnalysis& analysis = (*kernel)->analysis();
    // Which schedule the candidate holds, so offsets map back to original instructions.
    auto schedule = (*kernel)->scheduleOf(candidate, candidatePath);
    if (!schedule) return fail(schedule.message());

    auto choice = makeEvaluator(*evalOptions);
    if (!choice) return fail(choice.message());
    KernelEvaluator kev(*kernel, *choice, *spec);
    if (Status s = kev.prepare(); !s) return fail(s.message());
    auto profile = kev.stallsOfCubin(candidate, *period);
    if (!profile) return fail(profile.message());
    auto mapped = mapStalls(*profile, analysis, *schedule);
    if (!mapped) return fail(mapped.message());
    if (args.json) {
        json j{{"spec", spec->name},
               {"kernel", spec->kernel},
               {"candidate", candidatePath},
               {"profile", toJson(*profile)},
               {"kernel_stalls", kernelStallsJson(*mapped, analysis, *schedule)}};
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    printText(*profile, *mapped, analysis, *schedule, candidatePath, args.top);
    return 0;
}

} // namespace

CliCommand addStallsCommand(CLI::App& root)
{
    auto args = std::make_shared<StallsArgs>();
    // Samples come only from a GPU: "gpu" unless asked otherwise, so the estimate is never used silently.
    args->evaluator.backend = eval::backendName(eval::Backend::Gpu);
    CLI::App* command =
        root.add_subcommand("stalls", "where warps wait, per instruction (CUPTI PC sampling; needs a GPU)");
    command->add_option("SPEC.json", args->spec, "the launch spec (docs/launch-spec.md)")->required();
    command
        ->add_option("--cubin", args->cubin,
                     "a reschedule of the spec's kernel (default: the spec's own cubin)")
        ->type_name("FILE");
    command->add_option("--period", args->period, "a sample per SM every 2^N cycles, N in 5..31, or auto")
        ->type_name("N|auto")
        ->capture_default_str();
    command->add_option("--top", args->top, "instructions listed, the most sampled first")
        ->capture_default_str();
    command->add_flag("--json", args->json, "JSON instead of text");
    addEvaluatorOptions(*command, args->evaluator);
    addWorkspaceOptions(*command, args->workspace, KernelOption::FromSpec);
    return {command, [args] { return runStalls(*args); }};
}
