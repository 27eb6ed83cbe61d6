#include "core/estimate/schedule_model.h"

#include "core/analysis/arch_model.h"
#include "core/analysis/kernel_analysis.h"
#include "core/common/paths.h"
#include "core/rewrite/block_positions.h"
#include "core/sass/semantics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

namespace sassx::eval {

namespace {

using Cycle = int64_t;

// Pipes an instruction occupies beyond the issue port. Fixed-latency ALU/FMA work is issue-bound
// on sm_80+ (one warp instruction per cycle per SMSP), so it has no pipe here.
enum Pipe : int
{
    kNoPipe = -1,
    kShared = 0,
    kGlobal,
    kTensor,
    kXu,
    kPipeCount
};

// Scoreboards 0..5 from the control bits, plus the warpgroup's gsb0 that HGMMA/WARPGROUP.DEPBAR use.
constexpr int kGsb = 6;
constexpr int kBoards = 7;

struct Op
{
    const Instruction* ins = nullptr;
    Control control;
    int pipe = kNoPipe;
    int occupancy = 0; // cycles on its pipe
    int latency = 0;   // issue (after queueing) to scoreboard release, variable-latency only
    bool variable = false;
    bool barrier = false; // BAR.SYNC-like: waits for every simulated warp
    int depbarBoard = -1; // DEPBAR.LE SBk, N / WARPGROUP.DEPBAR.LE gsb0, N
    int depbarCount = 0;
    bool ldgsts = false;    // joins the open LDGDEPBAR group
    bool ldgdepbar = false; // closes the group onto a scoreboard
    bool hgmma = false;     // completes on gsb0
};

struct Warp
{
    size_t pos = 0;
    Cycle ready = 0;
    std::array<std::vector<Cycle>, kBoards> pending; // completion cycles per scoreboard
    Cycle openGroup = -1;
    bool atBarrier = false;
    Cycle arrival = 0;
};

std::string className(InstrClass c)
{
    switch (c) {
    case InstrClass::Alu:
        return "Alu";
    case InstrClass::Fma:
        return "Fma";
    case InstrClass::Uniform:
        return "Uniform";
    case InstrClass::Mufu:
        return "Mufu";
    case InstrClass::Conversion:
        return "Conversion";
    case InstrClass::Tensor:
        return "Tensor";
    case InstrClass::LoadGlobal:
        return "LoadGlobal";
    case InstrClass::StoreGlobal:
        return "StoreGlobal";
    case InstrClass::LoadShared:
        return "LoadShared";
    case InstrClass::StoreShared:
        return "StoreShared";
    case InstrClass::LoadLocal:
        return "LoadLocal";
    case InstrClass::StoreLocal:
        return "StoreLocal";
    case InstrClass::AsyncCopy:
        return "AsyncCopy";
    case InstrClass::Atomic:
        return "Atomic";
    case InstrClass::LoadConst:
        return "LoadConst";
    case InstrClass::Texture:
        return "Texture";
    case InstrClass::SpecialReg:
        return "SpecialReg";
    case InstrClass::Shuffle:
        return "Shuffle";
    case InstrClass::Barrier:
        return "Barrier";
    case InstrClass::Branch:
        return "Branch";
    case InstrClass::Nop:
        return "Nop";
    default:
        return "Other";
    }
}

bool hasModifier(const Instruction& ins, const std::string& m)
{
    return std::find(ins.modifiers.begin(), ins.modifiers.end(), m) != ins.modifiers.end();
}

// Bytes one warp instruction moves: access width × 32 lanes; LDSM/STSM move 128 B per matrix.
double warpBytes(const Instruction& ins)
{
    if (ins.op == sassx::Op::LDSM || ins.op == sassx::Op::STSM) {
        int n = hasModifier(ins, "x4") || hasModifier(ins, "X4")
                    ? 4
                    : (hasModifier(ins, "x2") || hasModifier(ins, "X2") ? 2 : 1);
        return 128.0 * n;
    }
    return std::max(8, ins.memoryBits) / 8.0 * 32.0;
}

// "64x128x16" in an HGMMA opcode → cycles of tensor work for one warp of the warpgroup, at the
// dense f16 rate of 1024 flop/cycle/SMSP (each of the 4 warps carries a quarter).
int hgmmaCycles(const Instruction& ins)
{
    static const std::regex shape(R"((\d+)x(\d+)x(\d+))");
    std::smatch m;
    if (!std::regex_search(ins.opcode, m, shape)) return 32;
    const double macs = std::stod(m[1]) * std::stod(m[2]) * std::stod(m[3]);
    return std::max(8, int(std::lround(macs * 2.0 / 4.0 / 1024.0)));
}

Op makeOp(const Instruction& ins, const Control& c, const ModelParams& p)
{
    Op op;
    op.ins = &ins;
    op.control = c;
    op.variable = ins.variableLatency;
    const std::string cls = className(ins.cls);
    op.latency = p.latencyOf(cls, ins.baseOpcode);
    auto occ = [&](const std::string& key, int fallback) {
        auto it = p.occupancy.find(key);
        return it != p.occupancy.end() ? it->second : fallback;
    };
    switch (ins.cls) {
    case InstrClass::LoadShared:
    case InstrClass::StoreShared:
    case InstrClass::Shuffle:
        op.pipe = kShared;
        op.occupancy = std::max(1, int(std::ceil(warpBytes(ins) / p.sharedBytesPerCycle)));
        break;
    case InstrClass::LoadGlobal:
    case InstrClass::StoreGlobal:
    case InstrClass::LoadLocal:
    case InstrClass::StoreLocal:
    case InstrClass::AsyncCopy:
    case InstrClass::Atomic:
    case InstrClass::Texture:
        if (ins.op == sassx::Op::ATOMS) {
            op.pipe = kShared;
            op.occupancy = std::max(1, int(std::ceil(warpBytes(ins) / p.sharedBytesPerCycle)));
        } else if (ins.is(kCopyEngine)) {
            op.pipe = kGlobal; // the copy engine moves the tile; the LSU only takes the request
            op.occupancy = 1;
        } else {
            op.pipe = kGlobal;
            op.occupancy = std::max(1, int(std::ceil(warpBytes(ins) / p.globalBytesPerCycle)));
        }
        break;
    case InstrClass::Tensor:
        op.pipe = kTensor;
        if (ins.op == sassx::Op::HGMMA || ins.op == sassx::Op::IGMMA || ins.op == sassx::Op::QGMMA) {
            op.hgmma = true;
            op.occupancy = hgmmaCycles(ins);
        } else {
            const bool big = ins.opcode.find("16816") != std::string::npos ||
                             ins.opcode.find("16832") != std::string::npos;
            op.occupancy = occ(big ? "HMMA.16816" : "HMMA", big ? 16 : 8);
        }
        break;
    case InstrClass::Mufu:
    case InstrClass::Conversion:
        op.pipe = kXu;
        op.occupancy = occ("Mufu", 8);
        break;
    default:
        break;
    }
    op.barrier = ins.op == sassx::Op::BAR && !hasModifier(ins, "ARV");
    op.ldgsts = ins.op == sassx::Op::LDGSTS;
    op.ldgdepbar = ins.op == sassx::Op::LDGDEPBAR;
    if (ins.op == sassx::Op::DEPBAR || ins.op == sassx::Op::WARPGROUP) {
        // "DEPBAR.LE SB0, 0x1" / "WARPGROUP.DEPBAR.LE gsb0, 0x0"
        static const std::regex re(R"((SB|gsb)(\d)\s*,\s*(0x[0-9a-fA-F]+|\d+))");
        std::smatch m;
        if (std::regex_search(ins.operandText, m, re)) {
            op.depbarBoard = m[1] == "gsb" ? kGsb : std::stoi(m[2]);
            op.depbarCount = int(std::stol(m[3], nullptr, 0));
        }
    }
    return op;
}

// Cycle at which at most `allowed` entries of `pending` are still outstanding.
Cycle drainedTo(const std::vector<Cycle>& pending, int allowed)
{
    if (int(pending.size()) <= allowed) return 0;
    std::vector<Cycle> v = pending;
    std::sort(v.begin(), v.end(), std::greater<>());
    return v[size_t(allowed)];
}

// Simulates `warps` warps running `ops` `passes` times in a row; returns the cycle at which the
// slowest warp finished each pass.
std::vector<Cycle> simulate(const std::vector<Op>& ops, int warps, int passes, const ModelParams& p)
{
    std::vector<Warp> w(static_cast<size_t>(warps));
    std::array<Cycle, kPipeCount> pipeFree{};
    std::vector<Cycle> passEnd(size_t(passes), 0);
    const size_t total = ops.size() * size_t(passes);
    Cycle port = 0; // the SMSP issues one warp instruction per cycle
    int last = -1;
    if (ops.empty()) return passEnd;

    auto earliest = [&](const Warp& x) {
        const Op& op = ops[x.pos % ops.size()];
        Cycle e = std::max(port, x.ready);
        for (int k = 0; k < 6; ++k)
            if (op.control.waitsOn(k))
                for (Cycle c : x.pending[size_t(k)])
                    e = std::max(e, c);
        if (op.depbarBoard >= 0)
            e = std::max(e, drainedTo(x.pending[size_t(op.depbarBoard)], op.depbarCount));
        if (op.pipe != kNoPipe) e = std::max(e, pipeFree[size_t(op.pipe)] - p.queueCycles);
        return e;
    };

    for (;;) {
        int best = -1;
        Cycle bestAt = std::numeric_limits<Cycle>::max();
        bool anyWaiting = false;
        for (int i = 0; i < warps; ++i) {
            Warp& x = w[size_t(i)];
            if (x.pos >= total) continue;
            if (x.atBarrier) {
                anyWaiting = true;
                continue;
            }
            const Cycle e = earliest(x);
            // Greedy-then-oldest: the warp that issued last keeps the port on a tie.
            if (e < bestAt || (e == bestAt && i == last)) {
                best = i;
                bestAt = e;
            }
        }
        if (best < 0) {
            if (!anyWaiting) break;
            Cycle release = 0; // every live warp waits at a barrier: release them together
            for (auto& x : w)
                if (x.atBarrier) release = std::max(release, x.arrival);
            for (auto& x : w)
                if (x.atBarrier) {
                    x.atBarrier = false;
                    x.ready = release + p.barrierCycles;
                }
            continue;
        }
        Warp& x = w[size_t(best)];
        const Op& op = ops[x.pos % ops.size()];
        const Cycle t = bestAt;
        port = t + 1;
        last = best;
        for (auto& list : x.pending)
            std::erase_if(list, [&](Cycle c) { return c <= t; });
        Cycle done = t + op.latency;
        if (op.pipe != kNoPipe) {
            Cycle& free = pipeFree[size_t(op.pipe)];
            const Cycle start = std::max(t, free);
            free = start + op.occupancy;
            done = free + op.latency;
        }
        if (op.variable && op.control.wbar < 6) x.pending[op.control.wbar].push_back(done);
        if (op.control.rbar < 6) x.pending[op.control.rbar].push_back(t + p.readRelease);
        if (op.ldgsts) x.openGroup = std::max(x.openGroup, done);
        if (op.ldgdepbar) {
            const int sb = op.control.wbar < 6 ? op.control.wbar : 0;
            x.pending[size_t(sb)].push_back(std::max(x.openGroup, t));
            x.openGroup = -1;
        }
        if (op.hgmma) x.pending[kGsb].push_back(done);
        x.ready = t + std::max<int>(1, op.control.stall);
        if (op.barrier) {
            x.atBarrier = true;
            x.arrival = x.ready;
        }
        ++x.pos;
        if (x.pos % ops.size() == 0) {
            Cycle& end = passEnd[x.pos / ops.size() - 1];
            end = std::max(end, x.ready);
        }
    }
    return passEnd;
}

} // namespace

int ModelParams::latencyOf(const std::string& cls, const std::string& baseOpcode) const
{
    if (auto it = opcodeLatency.find(baseOpcode); it != opcodeLatency.end()) return it->second;
    if (auto it = latency.find(cls); it != latency.end()) return it->second;
    auto it = latency.find("default");
    return it != latency.end() ? it->second : 20;
}

Result<ModelParams> ModelParams::fromJson(const std::string& text)
{
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return makeError("estimate model parameters are not a JSON object");
    try {
        ModelParams p;
        p.arch = j.value("arch", "");
        p.source = j.value("source", "");
        p.clockMhz = j.value("clock_mhz", p.clockMhz);
        p.smCount = j.value("sm_count", p.smCount);
        p.smspPerSm = j.value("smsp_per_sm", p.smspPerSm);
        p.maxWarpsPerSm = j.value("max_warps_per_sm", p.maxWarpsPerSm);
        p.maxBlocksPerSm = j.value("max_blocks_per_sm", p.maxBlocksPerSm);
        p.regsPerSm = j.value("regs_per_sm", p.regsPerSm);
        p.regAllocUnit = j.value("reg_alloc_unit", p.regAllocUnit);
        p.sharedPerSm = j.value("shared_per_sm", p.sharedPerSm);
        p.sharedReservedPerBlock = j.value("shared_reserved_per_block", p.sharedReservedPerBlock);
        p.maxSimulatedWarps = j.value("max_simulated_warps", p.maxSimulatedWarps);
        p.loopWeightBase = j.value("loop_weight_base", p.loopWeightBase);
        p.loopPasses = std::max(2, j.value("loop_passes", p.loopPasses));
        p.barrierCycles = j.value("barrier_cycles", p.barrierCycles);
        p.readRelease = j.value("read_release", p.readRelease);
        p.sharedBytesPerCycle = j.value("shared_bytes_per_cycle", p.sharedBytesPerCycle);
        p.globalBytesPerCycle = j.value("global_bytes_per_cycle", p.globalBytesPerCycle);
        p.queueCycles = j.value("queue_cycles", p.queueCycles);
        auto ints = [&](const char* key, std::map<std::string, int>& out) {
            if (auto it = j.find(key); it != j.end() && it->is_object())
                for (auto& [k, v] : it->items())
                    if (v.is_number()) out[k] = v.get<int>();
        };
        ints("latency", p.latency);
        ints("opcode_latency", p.opcodeLatency);
        ints("occupancy", p.occupancy);
        if (p.clockMhz <= 0 || p.smCount <= 0 || p.smspPerSm <= 0 || p.sharedBytesPerCycle <= 0 ||
            p.globalBytesPerCycle <= 0 || p.maxSimulatedWarps <= 0)
            return makeError("estimate model parameters: clock, SM count and pipe rates must be positive");
        return p;
    } catch (const std::exception& e) {
        return makeError(std::string("estimate model parameters: ") + e.what());
    }
}

Result<ModelParams> ModelParams::load(int sm)
{
    const auto arch = ArchModel::forSm(sm);
    const auto path = resourcesDir() / "estimate" / ("sm_" + std::to_string(arch->tableSm()) + ".json");
    std::ifstream in(path);
    if (!in) return makeError("no estimate model for sm_" + std::to_string(sm) + " (" + path.string() + ")");
    std::stringstream ss;
    ss << in.rdbuf();
    auto p = fromJson(ss.str());
    if (!p) return makeError(path.string() + ": " + p.message());
    p->latencyLabel = arch->latencyLabel();
    p->latencyOrigin = arch->latencyOrigin();
    return p;
}

Result<Occupancy> computeOccupancy(const ModelParams& p, const LaunchShape& l)
{
    if (l.blocks == 0 || l.threadsPerBlock == 0) return makeError("the launch has no threads");
    Occupancy o;
    const int warpsPerBlock = int((l.threadsPerBlock + 31) / 32);
    const int regsPerWarp =
        int((l.regsPerThread * 32 + uint32_t(p.regAllocUnit) - 1) / uint32_t(p.regAllocUnit)) *
        p.regAllocUnit;
    struct Limit
    {
        int blocks;
        const char* name;
    };
    const Limit limits[] = {
        {p.maxBlocksPerSm, "blocks"},
        {p.maxWarpsPerSm / warpsPerBlock, "warps"},
        {regsPerWarp > 0 ? p.regsPerSm / (regsPerWarp * warpsPerBlock) : p.maxBlocksPerSm, "registers"},
        {p.sharedPerSm / int(l.sharedPerBlock + uint32_t(p.sharedReservedPerBlock)), "shared memory"},
    };
    o.blocksPerSm = std::numeric_limits<int>::max();
    for (const Limit& lim : limits)
        if (lim.blocks < o.blocksPerSm) {
            o.blocksPerSm = lim.blocks;
            o.limiter = lim.name;
        }
    if (o.blocksPerSm <= 0) return makeError("a block does not fit on an SM (" + o.limiter + ")");
    const uint64_t perWave = uint64_t(o.blocksPerSm) * uint64_t(p.smCount);
    o.waves = (l.blocks + perWave - 1) / perWave;
    int resident = o.blocksPerSm;
    const uint64_t gridPerSm = (l.blocks + uint64_t(p.smCount) - 1) / uint64_t(p.smCount);
    if (gridPerSm < uint64_t(resident)) {
        resident = int(gridPerSm);
        o.limiter = "grid";
    }
    o.warpsPerSmsp = std::max(1, (resident * warpsPerBlock + p.smspPerSm - 1) / p.smspPerSm);
    o.simulatedWarps = std::min(o.warpsPerSmsp, p.maxSimulatedWarps);
    return o;
}

Result<Estimate> estimateSchedule(const KernelAnalysis& a, const Schedule& s, const ModelParams& p,
                                  const LaunchShape& launch)
{
    const auto& insts = a.listing.instructions;
    if (s.order.size() != insts.size() || s.control.size() != insts.size())
        return makeError("the schedule has " + std::to_string(s.order.size()) + " instructions, the kernel " +
                         std::to_string(insts.size()));
    for (InstrId o : s.order)
        if (o.value() >= insts.size())
            return makeError("the schedule names instruction " + to_string(o) + " past the kernel's end");
    auto occ = computeOccupancy(p, launch);
    if (!occ) return occ.error();

    // Segments: each loop (header..latch in layout order) contributes the blocks at its own depth;
    // every depth-0 block forms one straight-line segment; anything left is a self-repeating block.
    const auto& blocks = a.cfg.blocks;
    std::vector<int> segmentOf(blocks.size(), -1);
    std::vector<std::vector<int>> segBlocks;
    std::vector<int> segDepth;
    for (const BasicBlock& h : blocks) {
        if (!h.isLoopHeader || h.loopDepth <= 0 || segmentOf[size_t(h.index)] >= 0) continue;
        int latch = h.index;
        for (int pred : h.predecessors)
            latch = std::max(latch, pred);
        std::vector<int> members;
        for (int b = h.index; b <= latch; ++b)
            if (blocks[size_t(b)].loopDepth == h.loopDepth && segmentOf[size_t(b)] < 0) {
                segmentOf[size_t(b)] = int(segBlocks.size());
                members.push_back(b);
            }
        segBlocks.push_back(members);
        segDepth.push_back(h.loopDepth);
    }
    std::vector<int> top;
    for (const BasicBlock& b : blocks)
        if (segmentOf[size_t(b.index)] < 0) {
            if (b.loopDepth == 0) {
                top.push_back(b.index);
            } else {
                segBlocks.push_back({b.index});
                segDepth.push_back(b.loopDepth);
            }
        }
    if (!top.empty()) {
        segBlocks.insert(segBlocks.begin(), top);
        segDepth.insert(segDepth.begin(), 0);
    }

    Estimate est;
    est.occupancy = occ.value();
    for (size_t si = 0; si < segBlocks.size(); ++si) {
        std::vector<Op> ops;
        for (int b : segBlocks[si])
            for (Position pos : positionsOf(blocks[size_t(b)])) {
                const InstrId orig = s.order[pos];
                ops.push_back(makeOp(insts[orig.value()], s.control[orig], p));
            }
        const int depth = segDepth[si];
        const int passes = depth > 0 ? p.loopPasses : 1;
        const auto ends = simulate(ops, est.occupancy.simulatedWarps, passes, p);
        SegmentEstimate seg;
        seg.firstBlock = segBlocks[si].empty() ? 0 : segBlocks[si].front();
        seg.loopDepth = depth;
        seg.weight = std::pow(double(p.loopWeightBase), std::min(depth, 4));
        // Steady state of a loop: later passes, so values prefetched by one iteration for the next
        // (software pipelining) are waited for where the real loop waits for them.
        seg.cyclesPerPass = passes > 1 ? double(ends.back() - ends.front()) / double(passes - 1)
                                       : double(ends.empty() ? 0 : ends.back());
        est.smspCycles += seg.weight * seg.cyclesPerPass;
        est.segments.push_back(seg);
    }
    // Simulated warps beyond the cap would have issued too: scale issue-bound time linearly.
    if (est.occupancy.simulatedWarps < est.occupancy.warpsPerSmsp)
        est.smspCycles *= double(est.occupancy.warpsPerSmsp) / double(est.occupancy.simulatedWarps);
    est.cycles = est.smspCycles * double(est.occupancy.waves);
    est.microseconds = est.cycles / p.clockMhz;
    return est;
}

} // namespace sassx::eval
