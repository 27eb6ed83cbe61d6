#include "core/analysis/cfg.h"

#include <algorithm>
#include <functional>
#include <map>

namespace sassx {
namespace {

bool isUnconditionalEnd(const Instruction& ins)
{
    if (ins.guard && !(ins.guard->file == RegFile::P && ins.guard->index == kPT && !ins.guardNegated))
        return false;
    if (!ins.predicateText.empty() && ins.predicateText != "@PT") return false;
    return ins.is(kEndsUnconditionally);
}

bool endsBlock(const Instruction& ins)
{
    return ins.controlFlow || ins.cls == InstrClass::Branch;
}

} // namespace

ControlFlowGraph ControlFlowGraph::build(const KernelListing& listing)
{
    ControlFlowGraph g;
    const auto& insts = listing.instructions;
    const uint32_t n = uint32_t(insts.size());
    g.blockOf.assign(n, 0);
    if (n == 0) return g;
    std::vector<char> leader(n + 1, 0), target(n + 1, 0);
    leader[0] = 1;
    for (uint32_t i = 0; i < n; ++i) {
        const auto& ins = insts[i];
        if (ins.branchTarget) {
            uint64_t t = *ins.branchTarget / 16;
            if (t < n) {
                leader[t] = 1;
                target[t] = 1;
            }
        }
        if (endsBlock(ins) && i + 1 < n) leader[i + 1] = 1;
    }
    std::map<uint32_t, int> startToBlock;
    for (uint32_t i = 0; i < n; ++i) {
        if (leader[i]) {
            BasicBlock b;
            b.index = int(g.blocks.size());
            b.first = i;
            b.isBranchTarget = target[i];
            startToBlock[i] = b.index;
            g.blocks.push_back(b);
        }
        g.blockOf[i] = int(g.blocks.size()) - 1;
    }
    int labelCounter = 0;
    for (size_t k = 0; k < g.blocks.size(); ++k) {
        auto& b = g.blocks[k];
        b.end = k + 1 < g.blocks.size() ? g.blocks[k + 1].first : n;
        b.label = k == 0 ? "entry" : (b.isBranchTarget ? ".L_x_" + std::to_string(labelCounter++) : "");
    }
    for (auto& b : g.blocks) {
        const auto& last = insts[b.end - 1];
        auto addSucc = [&](int s) {
            if (std::find(b.successors.begin(), b.successors.end(), s) == b.successors.end())
                b.successors.push_back(s);
        };
        if (last.branchTarget && last.op != Op::BSSY) {
            auto it = startToBlock.find(uint32_t(*last.branchTarget / 16));
            if (it != startToBlock.end()) addSucc(it->second);
        }
        if (last.is(kIndirect)) b.endsInIndirect = true;
        bool fallsThrough = !isUnconditionalEnd(last) || last.op == Op::CALL;
        if (fallsThrough && b.index + 1 < int(g.blocks.size())) addSucc(b.index + 1);
    }
    // Subroutines (CALL.REL … RET): the callee is a successor of the call, and RET returns to every
    // call site's continuation, so that the caller's live values stay live through the callee.
    std::vector<int> returnSites;
    for (auto& b : g.blocks) {
        const auto& last = insts[b.end - 1];
        if (last.op == Op::CALL && b.index + 1 < int(g.blocks.size())) returnSites.push_back(b.index + 1);
    }
    for (auto& b : g.blocks) {
        if (insts[b.end - 1].op != Op::RET) continue;
        for (int r : returnSites)
            if (std::find(b.successors.begin(), b.successors.end(), r) == b.successors.end())
                b.successors.push_back(r);
    }
    for (auto& b : g.blocks)
        for (int s : b.successors)
            g.blocks[s].predecessors.push_back(b.index);

    // Loops: back edges found by DFS; a loop body is everything that reaches the latch without
    // passing the header (natural loop), which gives nesting depth.
    std::vector<int> state(g.blocks.size(), 0);
    std::vector<std::pair<int, int>> backEdges;
    std::vector<std::pair<int, size_t>> stack{{0, 0}};
    state[0] = 1;
    while (!stack.empty()) {
        auto& [v, i] = stack.back();
        if (i < g.blocks[v].successors.size()) {
            int s = g.blocks[v].successors[i++];
            if (state[s] == 0) {
                state[s] = 1;
                stack.push_back({s, 0});
            } else if (state[s] == 1) {
                backEdges.push_back({v, s});
            }
        } else {
            state[v] = 2;
            stack.pop_back();
        }
    }
    for (auto [latch, header] : backEdges) {
        g.blocks[header].isLoopHeader = true;
        std::vector<char> inLoop(g.blocks.size(), 0);
        inLoop[header] = 1;
        std::vector<int> work;
        if (!inLoop[latch]) {
            inLoop[latch] = 1;
            work.push_back(latch);
        }
        while (!work.empty()) {
            int v = work.back();
            work.pop_back();
            for (int p : g.blocks[v].predecessors)
                if (!inLoop[p]) {
                    inLoop[p] = 1;
                    work.push_back(p);
                }
        }
        for (size_t k = 0; k < g.blocks.size(); ++k)
            if (inLoop[k]) ++g.blocks[k].loopDepth;
    }
    return g;
}

} // namespace sassx
