#include "core/rewrite/schedule_diff.h"

#include "core/analysis/kernel_analysis.h"
#include "core/sass/control_text.h"
#include "core/sass/instruction_text.h"
#include "core/sass/listing.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace sassx {

namespace {

constexpr uint64_t kControlBits = 0x1FFFFFull << 41;

DiffSide::Row rowOf(const Instruction& ins, const Control& c)
{
    return {ins.lo, ins.hi & ~kControlBits, c, instructionText(ins, c)};
}

// Positions (in A order) that belong to a longest increasing run of B positions: everything else is
// what moved. Minimal: one instruction moved by k places marks one instruction, not k+1.
std::vector<bool> inLongestIncreasing(const std::vector<uint32_t>& seq)
{
    const size_t n = seq.size();
    std::vector<size_t> tailIdx, prev(n, SIZE_MAX);
    for (size_t i = 0; i < n; ++i) {
        auto it = std::lower_bound(tailIdx.begin(), tailIdx.end(), seq[i],
                                   [&](size_t t, uint32_t v) { return seq[t] < v; });
        if (it != tailIdx.begin()) prev[i] = *(it - 1);
        if (it == tailIdx.end())
            tailIdx.push_back(i);
        else
            *it = i;
    }
    std::vector<bool> keep(n, false);
    for (size_t i = tailIdx.empty() ? SIZE_MAX : tailIdx.back(); i != SIZE_MAX; i = prev[i])
        keep[i] = true;
    return keep;
}

} // namespace

DiffSide DiffSide::fromListing(const KernelListing& listing, std::string label)
{
    DiffSide s;
    s.label = std::move(label);
    for (const auto& ins : listing.instructions)
        s.rows.push_back(rowOf(ins, ins.control));
    return s;
}

DiffSide DiffSide::fromSchedule(const KernelAnalysis& a, const Schedule& schedule, std::string label)
{
    DiffSide s;
    s.label = std::move(label);
    for (InstrId i : schedule.order)
        s.rows.push_back(rowOf(a.listing.instructions[i.value()], schedule.control[i]));
    return s;
}

std::string FieldChange::text() const
{
    char buf[48];
    if (field == "stall")
        std::snprintf(buf, sizeof buf, "S%02d->S%02d", from, to);
    else if (field == "yield")
        std::snprintf(buf, sizeof buf, "Y%d->Y%d", from, to);
    else if (field == "wbar" || field == "rbar") {
        auto sb = [](int v) { return v == kNoBarrier ? std::string("-") : std::to_string(v); };
        std::snprintf(buf, sizeof buf, "%c%s->%c%s", field == "wbar" ? 'W' : 'R', sb(from).c_str(),
                      field == "wbar" ? 'W' : 'R', sb(to).c_str());
    } else {
        // The mask fields in the listing's notation (core/sass/control_text.h), spaced: their places
        // are dashes themselves.
        Control a, b;
        const bool wait = field == "wait";
        (wait ? a.wait : a.reuse) = uint8_t(from);
        (wait ? b.wait : b.reuse) = uint8_t(to);
        const auto ta = controlFieldTexts(a), tb = controlFieldTexts(b);
        return wait ? "wait " + ta.wait + " -> " + tb.wait : "reuse " + ta.reuse + " -> " + tb.reuse;
    }
    return buf;
}

std::vector<FieldChange> controlChanges(const Control& a, const Control& b)
{
    std::vector<FieldChange> out;
    auto add = [&](const char* f, int x, int y) {
        if (x != y) out.push_back({f, x, y});
    };
    add("stall", a.stall, b.stall);
    add("yield", a.yield, b.yield);
    add("wbar", a.wbar, b.wbar);
    add("rbar", a.rbar, b.rbar);
    add("wait", a.wait, b.wait);
    add("reuse", a.reuse, b.reuse);
    return out;
}

size_t ScheduleDiff::movedCount() const
{
    return size_t(std::count_if(entries.begin(), entries.end(), [](const DiffEntry& e) { return e.moved; }));
}

size_t ScheduleDiff::controlChangedCount() const
{
    return size_t(
        std::count_if(entries.begin(), entries.end(), [](const DiffEntry& e) { return !e.control.empty(); }));
}

size_t ScheduleDiff::shiftedCount() const
{
    return size_t(
        std::count_if(entries.begin(), entries.end(), [](const DiffEntry& e) { return e.aPos != e.bPos; }));
}

Result<ScheduleDiff> diffSchedules(const DiffSide& a, const DiffSide& b, const std::string& kernel)
{
    if (a.rows.size() != b.rows.size())
        return makeError(kernel + " has " + std::to_string(a.rows.size()) + " instructions in " + a.label +
                         " but " + std::to_string(b.rows.size()) + " in " + b.label +
                         ": not two schedules of one kernel");
    using Key = std::pair<uint64_t, uint64_t>;
    std::map<Key, std::vector<uint32_t>> bByKey; // B positions per instruction word, in order
    for (uint32_t p = 0; p < b.rows.size(); ++p)
        bByKey[{b.rows[p].lo, b.rows[p].hiOperands}].push_back(p);
    std::map<Key, size_t> used;
    ScheduleDiff d;
    d.kernel = kernel;
    d.aLabel = a.label;
    d.bLabel = b.label;
    d.a = a;
    d.b = b;
    d.aToB.resize(a.rows.size());
    for (uint32_t p = 0; p < a.rows.size(); ++p) {
        const Key key{a.rows[p].lo, a.rows[p].hiOperands};
        auto it = bByKey.find(key);
        size_t& k = used[key];
        if (it == bByKey.end() || k >= it->second.size()) {
            char buf[64];
            std::snprintf(buf, sizeof buf, " (position %u, 0x%04x)", p, p * 16);
            return makeError("'" + a.rows[p].text + "'" + buf + " of " + a.label + " has no counterpart in " +
                             b.label + ": the kernels differ in more than order and control bits");
        }
        d.aToB[p] = it->second[k++];
    }
    const std::vector<bool> stay = inLongestIncreasing(d.aToB);
    d.entries.resize(b.rows.size());
    for (uint32_t p = 0; p < a.rows.size(); ++p) {
        DiffEntry& e = d.entries[d.aToB[p]];
        e.aPos = p;
        e.bPos = d.aToB[p];
        e.moved = !stay[p];
        e.control = controlChanges(a.rows[p].control, b.rows[e.bPos].control);
    }
    return d;
}

} // namespace sassx
