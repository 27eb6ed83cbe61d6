// latency-variants: writes the stall-sweep variants of the timing-model probe (bench/latency/README.md).
//
//   latency-variants PROBE.cubin OUTDIR        variants + manifest.json
//   latency-variants --census CUBIN...         the back-to-back pair keys of real kernels, with counts
//
// For every back-to-back pair (i, i+1) of one block that the probe can judge, it groups the pairs by key
// (core/analysis/latency_table.h, latencyPairKey: RAW/WAR/WAW, writer and reader opcode keys, operand
// kind; scoreboard visibility; same-class memory spacing) and, for every stall N below ptxas' own, writes
// one cubin in which the first instruction of every pair of that key issues its successor N cycles after
// itself. Only pairs whose edit breaks nothing else are used: the variant is run through sassx's
// LegalityChecker (whose other bounds are ptxas' own distances) and a pair is dropped when the edit
// raises any hazard other than on the pair itself. So a wrong output of the variant can only come from
// the pairs being probed.
//
// MEASUREMENT TOOL, NEVER A PRODUCT PATH: the cubins it writes break latency bounds on purpose and may
// compute wrong results; they must never be offered to a user as a tuned kernel.
#include "core/analysis/kernel_analysis.h"
#include "core/analysis/latency_table.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/control_rules.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/legality.h"
#include "core/sass/listing.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace sassx;
using nlohmann::json;

namespace {

struct Pair
{
    uint32_t first = 0; // instruction index; the second is first + 1
    std::string key;
};

// Every probe-able key of the back-to-back pair (i, i + 1); a pair may carry several (RAW and WAR).
std::vector<std::string> keysOf(const KernelAnalysis& a, uint32_t i)
{
    const auto& ins = a.listing.instructions;
    std::vector<std::string> keys;
    for (const auto& k : latencyPairKeys(ins[i], ins[i + 1]))
        keys.push_back(k.name());
    return keys;
}

std::vector<Pair> pairsOf(const KernelAnalysis& a)
{
    std::vector<Pair> out;
    for (const auto& b : a.cfg.blocks)
        for (uint32_t i = b.first; i + 1 < b.end; ++i)
            for (auto& k : keysOf(a, i))
                out.push_back({i, std::move(k)});
    return out;
}

// A write-after-write bound j -> k that another dependency already implies: j's result is read by m
// (j < m < k, m not after any probed instruction's successor) at ptxas' distance, so j's write landed
// before m issued, which is before k. The checker keeps ptxas' distance on every WAW edge; the probe
// may shorten such an edge.
bool impliedWaw(const KernelAnalysis& a, uint32_t j, uint32_t k, const std::set<uint32_t>& firsts)
{
    bool anyEdge = false;
    for (uint32_t e : a.deps.outgoing(j)) {
        const auto& d = a.deps.edges()[e];
        if (d.to != k) continue;
        anyEdge = true;
        if (d.kind != DepKind::Waw) return false;
    }
    if (!anyEdge) return false;
    for (uint32_t e : a.deps.outgoing(j)) {
        const auto& d = a.deps.edges()[e];
        if (d.kind != DepKind::Raw || d.to >= k) continue;
        // The RAW distance j -> m is unchanged when no probed pair lies between them.
        bool unchanged = true;
        for (uint32_t f : firsts)
            if (f >= j && f < d.to) unchanged = false;
        if (unchanged) return true;
    }
    return false;
}

// `crossing` counts the distance hazards between other instructions the edit causes, when allowed.
bool hazardOnlyOnPairs(const KernelAnalysis& a, const LegalityReport& r, const std::set<uint32_t>& firsts,
                       std::string* why, int* crossing)
{
    for (const auto& h : r.hazards) {
        const bool own = firsts.count(h.first.value()) &&
                         (h.second == h.first + 1 ||
                          (h.second == h.first && h.kind == HazardKind::Structure)); // the stall value rule
        if (own) continue;
        if (h.kind == HazardKind::Latency && h.first < h.second &&
            impliedWaw(a, h.first.value(), h.second.value(), firsts))
            continue;
        if (crossing && h.kind == HazardKind::Latency && h.first != h.second) {
            ++*crossing;
            continue;
        }
        if (why) *why = h.message;
        return false;
    }
    return true;
}

bool writeFile(const std::filesystem::path& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream f(path, std::ios::binary);
    return f && f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

int fail(const std::string& message)
{
    std::fprintf(stderr, "latency-variants: %s\n", message.c_str());
    return 1;
}

std::shared_ptr<const KernelAnalysis> analyse(const Cubin& cubin, const std::string& kernel,
                                              std::string& error)
{
    auto listing = disassembleKernel(cubin, kernel);
    if (!listing) {
        error = kernel + ": " + listing.message();
        return nullptr;
    }
    return KernelAnalysis::build(std::move(*listing));
}

int census(int argc, char** argv)
{
    std::map<std::string, int> counts;
    for (int f = 2; f < argc; ++f) {
        auto cubin = Cubin::load(argv[f]);
        if (!cubin) return fail(cubin.message());
        for (const auto& k : cubin->kernels()) {
            std::string error;
            auto a = analyse(*cubin, k.name, error);
            if (!a) return fail(error);
            for (const auto& p : pairsOf(*a))
                ++counts[p.key];
        }
    }
    json j = json::object();
    for (const auto& [k, n] : counts)
        j[k] = n;
    std::printf("%s\n", j.dump(1).c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 2 && std::string(argv[1]) == "--census") return census(argc, argv);
    if (argc != 3) return fail("usage: latency-variants PROBE.cubin OUTDIR | --census CUBIN...");
    auto cubin = Cubin::load(argv[1]);
    if (!cubin) return fail(cubin.message());
    const std::filesystem::path out = argv[2];
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) return fail("cannot create " + out.string() + ": " + ec.message());
    if (!writeFile(out / "orig.cubin", cubin->bytes())) return fail("cannot write orig.cubin");

    json manifest = {{"source", argv[1]}, {"arch", cubin->archName()}, {"variants", json::array()}};
    int written = 0, dropped = 0;
    for (const auto& k : cubin->kernels()) {
        std::string error;
        auto a = analyse(*cubin, k.name, error);
        if (!a) return fail(error);
        LegalityChecker checker(a);
        const auto& ins = a->listing.instructions;
        {
            // The unmodified kernel as a variant of its own: it must match orig.cubin in every run, or
            // the kernel's output depends on more than its inputs and none of its rows count.
            char name[32];
            std::snprintf(name, sizeof name, "v%05d.cubin", written++);
            if (!writeFile(out / name, cubin->bytes())) return fail(std::string("cannot write ") + name);
            manifest["variants"].push_back({{"file", name},
                                            {"kernel", k.name},
                                            {"key", "IDENTITY"},
                                            {"stall", 0},
                                            {"ptxas_least", 0},
                                            {"crossing_hazards", 0},
                                            {"pairs", json::array()}});
        }
        std::map<std::string, std::vector<uint32_t>> byKey;
        for (const auto& p : pairsOf(*a))
            byKey[p.key].push_back(p.first);
        for (const auto& [key, firsts] : byKey) {
            int orig = 16;
            for (uint32_t i : firsts)
                orig = std::min(orig, issueGap(ins[i].control));
            // Stalls 1 .. ptxas' least gap (the last one is the control: it must pass).
            for (int n = 1; n <= std::min(orig, 11); ++n) {
                // Strict first: only the probed pairs' own distances shrink. If no pair of this key can be
                // edited so, other distances crossing the pair may shrink too (counted in the manifest):
                // a failure then may not be the key's, so it can only raise the cell, never lower it.
                Schedule s = Schedule::identity(*a);
                std::vector<uint32_t> kept;
                int crossing = 0;
                for (int pass = 0; pass < 2 && kept.empty(); ++pass) {
                    s = Schedule::identity(*a);
                    std::set<uint32_t> used;
                    crossing = 0;
                    for (uint32_t i : firsts) {
                        if (issueGap(ins[i].control) < n || ins[i].control.stall > 11) continue;
                        Schedule trial = s;
                        trial.control[InstrId(i)].stall = uint8_t(n);
                        auto trialUsed = used;
                        trialUsed.insert(i);
                        std::string why;
                        int cross = 0;
                        if (!hazardOnlyOnPairs(*a, checker.check(trial), trialUsed, &why,
                                               pass == 1 ? &cross : nullptr)) {
                            if (std::getenv("LATENCY_VARIANTS_DEBUG"))
                                std::fprintf(stderr, "%s N=%d drop %u: %s\n", key.c_str(), n, i, why.c_str());
                            ++dropped;
                            continue;
                        }
                        s = std::move(trial);
                        used = std::move(trialUsed);
                        kept.push_back(i);
                        crossing = cross;
                    }
                }
                if (kept.empty()) continue;
                auto bytes = writeSchedule(*cubin, *a, s);
                if (!bytes) return fail(k.name + ": " + bytes.message());
                char name[32];
                std::snprintf(name, sizeof name, "v%05d.cubin", written++);
                if (!writeFile(out / name, *bytes)) return fail(std::string("cannot write ") + name);
                json pairs = json::array();
                for (uint32_t i : kept)
                    pairs.push_back({{"index", i},
                                     {"first", ins[i].text()},
                                     {"second", ins[i + 1].text()},
                                     {"ptxas_stall", ins[i].control.stall},
                                     {"ptxas_yield", ins[i].control.yield}});
                manifest["variants"].push_back({{"file", name},
                                                {"kernel", k.name},
                                                {"key", key},
                                                {"stall", n},
                                                {"ptxas_least", orig},
                                                {"crossing_hazards", crossing},
                                                {"pairs", pairs}});
            }
        }
    }
    std::ofstream(out / "manifest.json") << manifest.dump(1) << "\n";
    std::printf("wrote %d variants to %s (%d pair edits dropped: they broke another bound)\n", written,
                out.string().c_str(), dropped);
    return 0;
}
