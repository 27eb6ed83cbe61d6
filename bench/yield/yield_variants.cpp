// yield-variants: writes the 32 stall x yield variants of the probe cubin (bench/yield/yield_probe.cu).
//
//   yield-variants PROBE.cubin OUTDIR
//
// OUTDIR gets orig.cubin (a copy), s<S>_y<Y>.cubin for every stall S in 0..15 and yield bit Y in 0..1,
// and manifest.json (per kernel: the edited instruction indices, their text and ptxas' original stall
// and yield bits).
//
// MEASUREMENT TOOL, NEVER A PRODUCT PATH: it deliberately bypasses LegalityChecker and writes control
// bits the checker would refuse (stall 0, stalls below the read-after-write latency). Its only purpose
// is to measure what the hardware does with such bits (bench/yield/README.md); the cubins it writes may
// compute wrong results by design and must never be offered to a user as a tuned kernel.
//
// Which instructions are edited (only inside the loop body, the one block that branches back to itself):
//   gap_ffma_*   every FFMA              (8 independent chains: no read-after-write hazard at any stall)
//   gap_fadd_*   every FADD              (likewise; no reuse flags, unlike gap_ffma_*)
//   gap_iadd3_*  every IADD3             (likewise, 4 interleaved Fibonacci pairs)
//   raw_ffma     FFMA followed at once by an FFMA that reads its result (the writer of a RAW pair)
//   raw_iadd3    IADD3 followed at once by an IADD3 that reads its result
//   raw_imad     IMAD followed at once by an IADD3 that reads its result
// Everything else (loop counter, branch, clock reads) keeps ptxas' bits, so it cancels in the runner.
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/cubin_writer.h"
#include "core/sass/listing.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace sassx;
using nlohmann::json;

namespace {

struct Rule
{
    std::string prefix; // kernel name prefix
    std::string writer; // base opcode edited
    std::string reader; // empty: every writer in the body; else the next instruction must be this and
                        // read one of the writer's results
};

const std::vector<Rule> kRules = {
    {"gap_ffma_", "FFMA", ""},    {"gap_fadd_", "FADD", ""},       {"gap_iadd3_", "IADD3", ""},
    {"raw_ffma", "FFMA", "FFMA"}, {"raw_iadd3", "IADD3", "IADD3"}, {"raw_imad", "IMAD", "IADD3"},
};

const Rule* ruleFor(const std::string& kernel)
{
    for (const auto& r : kRules)
        if (kernel.rfind(r.prefix, 0) == 0) return &r;
    return nullptr;
}

bool reads(const Instruction& reader, const Instruction& writer)
{
    for (const auto& d : writer.defs)
        if (std::find(reader.uses.begin(), reader.uses.end(), d) != reader.uses.end()) return true;
    return false;
}

// The loop body: the block whose last instruction branches to the block's own start.
const BasicBlock* loopBody(const KernelAnalysis& a)
{
    for (const auto& b : a.cfg.blocks) {
        if (b.size() == 0) continue;
        const auto& last = a.listing.instructions[b.end - 1];
        if (last.branchTarget && *last.branchTarget == a.listing.instructions[b.first].offset) return &b;
    }
    return nullptr;
}

struct KernelPlan
{
    std::string kernel;
    std::shared_ptr<const KernelAnalysis> analysis;
    std::vector<InstrId> edited;
    json manifest;
};

Result<KernelPlan> plan(const Cubin& cubin, const std::string& kernel, const Rule& rule)
{
    auto listing = disassembleKernel(cubin, kernel);
    if (!listing) return makeError(kernel + ": " + listing.message());
    KernelPlan p;
    p.kernel = kernel;
    p.analysis = KernelAnalysis::build(std::move(*listing));
    const auto& ins = p.analysis->listing.instructions;
    const BasicBlock* body = loopBody(*p.analysis);
    if (!body) return makeError(kernel + ": no self-looping block found");
    for (uint32_t i = body->first; i < body->end; ++i) {
        if (ins[i].baseOpcode != rule.writer) continue;
        if (!rule.reader.empty()) {
            if (i + 1 >= body->end) continue;
            const auto& next = ins[i + 1];
            if (next.baseOpcode != rule.reader || !reads(next, ins[i])) continue;
        }
        p.edited.push_back(InstrId(i));
    }
    if (p.edited.empty()) return makeError(kernel + ": no instruction matches the rule");
    json edits = json::array();
    for (InstrId i : p.edited)
        edits.push_back({{"index", i},
                         {"text", ins[i.value()].text()},
                         {"stall", ins[i.value()].control.stall},
                         {"yield", ins[i.value()].control.yield}});
    json bodyText = json::array();
    for (uint32_t i = body->first; i < body->end; ++i)
        bodyText.push_back({{"index", i},
                            {"text", ins[i].text()},
                            {"stall", ins[i].control.stall},
                            {"yield", ins[i].control.yield}});
    p.manifest = {{"kernel", kernel},          {"writer", rule.writer}, {"reader", rule.reader},
                  {"body_first", body->first}, {"body_end", body->end}, {"edited_count", p.edited.size()},
                  {"edited", edits},           {"body", bodyText}};
    return p;
}

bool writeFile(const std::filesystem::path& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream f(path, std::ios::binary);
    return f && f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

int fail(const std::string& message)
{
    std::fprintf(stderr, "yield-variants: %s\n", message.c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) return fail("usage: yield-variants PROBE.cubin OUTDIR");
    auto cubin = Cubin::load(argv[1]);
    if (!cubin) return fail(cubin.message());
    const std::filesystem::path out = argv[2];
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) return fail("cannot create " + out.string() + ": " + ec.message());

    std::vector<KernelPlan> plans;
    json manifest = {{"source", argv[1]}, {"arch", cubin->archName()}, {"kernels", json::array()}};
    for (const auto& k : cubin->kernels()) {
        const Rule* rule = ruleFor(k.name);
        if (!rule) continue;
        auto p = plan(*cubin, k.name, *rule);
        if (!p) return fail(p.message());
        manifest["kernels"].push_back(p->manifest);
        plans.push_back(std::move(*p));
    }
    if (plans.empty()) return fail("no probe kernel (gap_*, raw_*) in " + std::string(argv[1]));

    if (!writeFile(out / "orig.cubin", cubin->bytes())) return fail("cannot write orig.cubin");
    json variants = json::array();
    for (int stall = 0; stall <= 15; ++stall) {
        for (int yield = 0; yield <= 1; ++yield) {
            // One kernel at a time: writeSchedule rewrites one kernel's code, so each result is parsed
            // again before the next kernel is written into it. Instruction indices do not change.
            std::vector<uint8_t> bytes = cubin->bytes();
            for (const auto& p : plans) {
                auto current = Cubin::parse(bytes);
                if (!current) return fail(current.message());
                Schedule s = Schedule::identity(*p.analysis);
                for (InstrId i : p.edited) {
                    s.control[i].stall = uint8_t(stall);
                    s.control[i].yield = uint8_t(yield);
                }
                auto written = writeSchedule(*current, *p.analysis, s);
                if (!written) return fail(p.kernel + ": " + written.message());
                bytes = std::move(*written);
            }
            const std::string name = "s" + std::to_string(stall) + "_y" + std::to_string(yield) + ".cubin";
            if (!writeFile(out / name, bytes)) return fail("cannot write " + name);
            variants.push_back({{"file", name}, {"stall", stall}, {"yield", yield}});
        }
    }
    manifest["variants"] = variants;
    std::ofstream(out / "manifest.json") << manifest.dump(1) << "\n";
    std::printf("wrote %zu variants of %zu kernels to %s\n", variants.size(), plans.size(),
                out.string().c_str());
    for (const auto& p : plans)
        std::printf("  %-14s %3zu instructions edited\n", p.kernel.c_str(), p.edited.size());
    return 0;
}
