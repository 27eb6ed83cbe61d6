#pragma once
// The estimate backend's static schedule model: simulates the issue of a kernel's hot code on one SM
// sub-partition (SMSP) for the warps that would be resident there, honouring stall counts, scoreboard
// waits (wait masks and DEPBAR), per-class latencies of variable-latency instructions and the
// throughput of the memory, tensor and special-function pipes. It returns estimated cycles; it runs
// nothing and proves nothing about correctness. Deterministic: same analysis + schedule + launch
// always gives identical figures (no clocks, no randomness, no unordered containers in the result).
#include "core/analysis/arch_model.h"
#include "core/common/result.h"
#include "core/rewrite/variant.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sassx {
struct KernelAnalysis;
}

namespace sassx::eval {

// Per-architecture figures of the model (resources/estimate/sm_XX.json, the file of the
// architecture's tables: ArchModel::tableSm). Variable-latency figures are public microbenchmark
// numbers, not measurements of ours; the JSON names its sources. Fixed-latency work is timed by the
// schedule's stall counts, which the checker holds to the architecture's latency table.
struct ModelParams
{
    std::string arch;
    std::string source;
    // The architecture's latency table as every figure of it is labelled (ArchModel::latencyLabel),
    // and whether its figures were measured there or come from a table; empty for parameters read
    // from JSON alone.
    std::string latencyLabel;
    FigureOrigin latencyOrigin = FigureOrigin::None;
    double clockMhz = 1755.0; // nominal SM clock used to turn cycles into time
    int smCount = 132;
    int smspPerSm = 4;
    int maxWarpsPerSm = 64;
    int maxBlocksPerSm = 32;
    int regsPerSm = 65536;
    int regAllocUnit = 256;            // registers, allocated per warp
    int sharedPerSm = 233472;          // bytes usable by blocks
    int sharedReservedPerBlock = 1024; // bytes the driver reserves per block
    int maxSimulatedWarps = 16;        // per SMSP (cost bound; more warps only saturate issue)
    int loopWeightBase = 16;           // a block at loop depth d counts base^d times
    int loopPasses = 3;                // passes over a loop body; steady state from the later ones
    int barrierCycles = 20;            // from the last warp's arrival to release
    // Latency in cycles from issue to result (scoreboard release) per instruction class name
    // ("LoadShared", "LoadGlobal", ...); "default" for classes not listed.
    std::map<std::string, int> latency;
    std::map<std::string, int> opcodeLatency; // overrides by base opcode ("LDSM", "HMMA", ...)
    int readRelease = 8;                      // cycles until a read scoreboard (rbar) frees its sources
    // Pipes: bytes per cycle per SMSP for memory pipes, cycles of occupancy for the others, and how
    // many cycles of backlog a pipe's queue absorbs before issue stalls.
    double sharedBytesPerCycle = 32.0;
    double globalBytesPerCycle = 16.0;
    int queueCycles = 32;
    std::map<std::string, int> occupancy; // base opcode or class → cycles on its pipe

    static Result<ModelParams> load(int sm); // the file of ArchModel::forSm(sm)->tableSm()
    static Result<ModelParams> fromJson(const std::string& text);
    int latencyOf(const std::string& cls, const std::string& baseOpcode) const;
};

// How the kernel is launched, as far as residency and waves go.
struct LaunchShape
{
    uint64_t blocks = 1; // grid x*y*z
    uint32_t threadsPerBlock = 32;
    uint32_t regsPerThread = 32; // the cubin's REGCOUNT
    uint32_t sharedPerBlock = 0; // static + dynamic bytes
};

struct Occupancy
{
    int blocksPerSm = 0;
    int warpsPerSmsp = 0;   // resident, on average over the SMSPs
    int simulatedWarps = 0; // min(warpsPerSmsp, maxSimulatedWarps)
    uint64_t waves = 0;
    std::string limiter; // "registers", "shared memory", "warps", "blocks", "grid"
};

Result<Occupancy> computeOccupancy(const ModelParams& p, const LaunchShape& launch);

struct SegmentEstimate
{
    int firstBlock = 0;
    int loopDepth = 0;
    double weight = 1.0;
    double cyclesPerPass = 0.0; // all simulated warps once through the segment, steady state
};

struct Estimate
{
    double cycles = 0.0;       // for the launch: waves × weighted cycles of one SMSP's warps
    double microseconds = 0.0; // cycles at params.clockMhz
    double smspCycles = 0.0;   // weighted cycles for one wave on one SMSP
    Occupancy occupancy;
    std::vector<SegmentEstimate> segments;
};

// Simulates `schedule` (order + control bits) of the analysed kernel. Never throws; an error says
// why the schedule cannot be estimated (size mismatch, no resident warp).
Result<Estimate> estimateSchedule(const KernelAnalysis& analysis, const Schedule& schedule,
                                  const ModelParams& params, const LaunchShape& launch);

} // namespace sassx::eval
