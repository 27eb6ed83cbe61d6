// Model building + dependency analysis (nvdisasm excluded: its JSON is read once up front) and
// legal-move enumeration, and the PPO agent's rows (a sample of 256 legal actions drawn and tested one at
// a time, EditProposer::sampleActions) against enumerating every legal move, on real cubins given on the
// command line:
//   bench_analysis --cubin=PATH [--cubin=PATH…] [google-benchmark flags]
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/legality.h"
#include "core/sass/listing.h"
#include "core/sass/nvdisasm.h"
#include "core/search/search_space.h"

#include <QCoreApplication>

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>

using namespace sassx;

namespace {

struct Input
{
    std::string name;
    Cubin cubin;
    std::string json;
    size_t instructions = 0;
};

std::vector<Input>& inputs()
{
    static std::vector<Input> v;
    return v;
}

void buildModel(benchmark::State& state, const Input* in)
{
    for (auto _ : state) {
        auto listings = listingsFromJson(in->cubin, in->json);
        auto a = KernelAnalysis::build(std::move(listings->front()));
        benchmark::DoNotOptimize(a->deps.edges().size());
    }
    state.counters["instructions"] = double(in->instructions);
}

void legalMoves(benchmark::State& state, const Input* in)
{
    auto listings = listingsFromJson(in->cubin, in->json);
    auto a = KernelAnalysis::build(std::move(listings->front()));
    LegalityChecker checker(a);
    auto identity = Schedule::identity(*a);
    size_t moves = 0, memory = 0;
    for (auto _ : state) {
        moves = checker.legalMoves(identity, true).size();
    }
    for (const auto& ins : a->listing.instructions)
        memory += ins.isMemory();
    state.counters["memory_instructions"] = double(memory);
    state.counters["legal_moves"] = double(moves);
    state.counters["instructions"] = double(in->instructions);
}

// Every legal move of all instructions (what the agent's rows were drawn from before sampleActions).
void allLegalMoves(benchmark::State& state, const Input* in)
{
    auto listings = listingsFromJson(in->cubin, in->json);
    auto a = KernelAnalysis::build(std::move(listings->front()));
    LegalityChecker checker(a);
    auto identity = Schedule::identity(*a);
    size_t moves = 0;
    for (auto _ : state)
        moves = checker.legalMoves(identity, false).size();
    state.counters["legal_moves"] = double(moves);
}

// The agent's 256 rows in the `all` space, a new seed each time (as a new schedule's hash would be).
void agentRows(benchmark::State& state, const Input* in)
{
    auto listings = listingsFromJson(in->cubin, in->json);
    auto a = KernelAnalysis::build(std::move(listings->front()));
    LegalityChecker checker(a);
    const search::EditProposer proposer(checker, search::SearchSpace::All);
    auto identity = Schedule::identity(*a);
    uint64_t seed = 0;
    size_t rows = 0;
    for (auto _ : state)
        rows = proposer.sampleActions(identity, 256, ++seed).size();
    state.counters["rows"] = double(rows);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    std::vector<char*> rest;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], "--cubin=", 8) == 0) {
            std::string path = argv[i] + 8;
            auto c = Cubin::load(path);
            if (!c) {
                std::cerr << path << ": " << c.message() << "\n";
                return 1;
            }
            auto json = runNvdisasm(c->bytes(), {"-json"});
            if (!json) {
                std::cerr << json.message() << "\n";
                return 1;
            }
            Input in{path.substr(path.find_last_of('/') + 1), std::move(*c), std::move(*json), 0};
            auto l = listingsFromJson(in.cubin, in.json);
            in.instructions = l && !l->empty() ? l->front().instructions.size() : 0;
            inputs().push_back(std::move(in));
        } else {
            rest.push_back(argv[i]);
        }
    }
    for (const auto& in : inputs()) {
        benchmark::RegisterBenchmark(("build_model/" + in.name).c_str(), buildModel, &in)
            ->Unit(benchmark::kMillisecond);
        if (in.instructions <= 20000) // the enumeration target is stated for a ~10k-instruction kernel
            benchmark::RegisterBenchmark(("legal_memory_moves/" + in.name).c_str(), legalMoves, &in)
                ->Unit(benchmark::kMillisecond);
        if (in.instructions <= 20000) {
            benchmark::RegisterBenchmark(("legal_moves_all/" + in.name).c_str(), allLegalMoves, &in)
                ->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("agent_rows_256/" + in.name).c_str(), agentRows, &in)
                ->Unit(benchmark::kMillisecond);
        }
    }
    int n = int(rest.size());
    benchmark::Initialize(&n, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    return 0;
}
