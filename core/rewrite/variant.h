#pragma once
// A variant = the original kernel + an ordered list of edits. It resolves to a permutation of the
// kernel's 16-byte instruction words plus new control bits, and serialises to JSON.
#include "core/common/result.h"
#include "core/rewrite/schedule_index.h"
#include "core/sass/control.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sassx {

struct KernelAnalysis;

struct Edit
{
    enum class Kind : uint8_t
    {
        Move,
        Control
    };
    Kind kind = Kind::Move;
    // Move: the instruction at position `from` (positions at the time of this edit) goes to `to`,
    // inside its basic block; |from - to| == 1 is an adjacent swap.
    Position from;
    Position to;
    // Control: the instruction at position `at` gets these fields (unset = unchanged).
    Position at;
    std::optional<uint8_t> stall, yield, reuse;

    static Edit move(Position from, Position to);
    static Edit control(Position at, std::optional<uint8_t> stall, std::optional<uint8_t> yield,
                        std::optional<uint8_t> reuse);
    std::string describe() const; // "move 12 → 9", "stall of 14 = 3"
    bool operator==(const Edit&) const = default;
};

struct Variant
{
    std::string name;
    std::string kernel;
    std::vector<Edit> edits;

    nlohmann::json toJson() const;
    static Result<Variant> fromJson(const nlohmann::json& j);
};

// What a variant amounts to: order[position] = the instruction there; control[instruction] = the
// control bits it will carry (after edits and reuse fix-ups).
struct Schedule
{
    IndexVector<Position, InstrId> order;
    IndexVector<InstrId, Control> control;

    static Schedule identity(const KernelAnalysis& a);
    IndexVector<InstrId, Position> positionOf() const; // inverse of order
    void move(Position from, Position to);             // the instruction at `from` goes to `to`
    bool isIdentity(const KernelAnalysis& a) const;
    // Whether some instruction stands somewhere other than where ptxas put it (control bits aside).
    bool reorders() const;
    uint32_t size() const { return uint32_t(order.size()); }
    IndexRange<Position> positions() const { return order.indices(); }
    IndexRange<InstrId> instructions() const { return control.indices(); }
};

// Applies the edits in order without judging legality beyond structure (indices in range, moves inside
// one basic block, control values in range). Legality is LegalityChecker's job. `afterMove` runs after
// every move (e.g. the reuse fix-up, so a replayed variant gets the bytes it was generated with).
Result<Schedule> applyEdits(const KernelAnalysis& a, const std::vector<Edit>& edits,
                            const std::function<void(Schedule&)>& afterMove = {});

} // namespace sassx
