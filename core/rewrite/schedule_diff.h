#pragma once
// The difference between two schedules of one kernel (two variants, or two cubins): which instructions
// moved and which control fields changed. Instructions are matched by their words without the control
// bits; equal words pair up in order of appearance, so duplicates match stably.
#include "core/common/result.h"
#include "core/rewrite/variant.h"
#include "core/sass/control.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

struct KernelAnalysis;
struct KernelListing;

// One side of a diff: the instructions in their order, with their control bits.
struct DiffSide
{
    struct Row
    {
        uint64_t lo = 0;
        uint64_t hiOperands = 0; // hi without the control bits
        Control control;
        std::string text; // "@P0 LDG.E R2, desc[UR4][R2.64]"; its `.reuse` marks follow `control`
    };
    std::string label; // file name or variant name, shown in headers
    std::vector<Row> rows;

    static DiffSide fromListing(const KernelListing& listing, std::string label);
    // The analysis' kernel in the schedule's order with the schedule's control bits.
    static DiffSide fromSchedule(const KernelAnalysis& analysis, const Schedule& schedule, std::string label);
};

struct FieldChange
{
    std::string field; // "stall", "yield", "wbar", "rbar", "wait", "reuse"
    int from = 0, to = 0;
    std::string text() const; // "S04->S02", "W-->W2", "wait 0----- -> 01----"
};

struct DiffEntry
{
    uint32_t aPos = 0, bPos = 0; // positions (instruction index) in A and B
    bool moved = false;          // out of order relative to the others (not merely shifted by a move)
    std::vector<FieldChange> control;
};

struct ScheduleDiff
{
    std::string kernel;
    std::string aLabel, bLabel;
    DiffSide a, b;
    std::vector<DiffEntry> entries; // one per instruction, in B order (entries[p].bPos == p)
    std::vector<uint32_t> aToB;     // aToB[aPos] = bPos

    size_t movedCount() const;
    size_t controlChangedCount() const;
    bool identical() const { return movedCount() == 0 && controlChangedCount() == 0 && shiftedCount() == 0; }
    size_t shiftedCount() const; // position changed (moved or pushed aside by a move)
};

// Fails with a sentence when the sides are not the same instructions (different size or multiset).
Result<ScheduleDiff> diffSchedules(const DiffSide& a, const DiffSide& b, const std::string& kernel);

std::vector<FieldChange> controlChanges(const Control& a, const Control& b);

} // namespace sassx
