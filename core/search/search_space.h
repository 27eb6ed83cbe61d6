#pragma once
// What a search may change: the spaces of docs/search.md. Every proposal is drawn from the legality checker's
// own legal moves and control edits (one rule table, core/rewrite/control_rules.h), so a search never
// evaluates a schedule the checker refuses; SIP's unchecked swap rule is a comparison mode of the bench
// scripts (random_variants.h), never a space.
#include "core/rewrite/legality.h"
#include "core/rewrite/schedule_index.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace sassx::search {

enum class SearchSpace : uint8_t
{
    Mem,         // moves of memory instructions only (SIP, CuAsmRL)
    All,         // moves of any instruction
    Yield,       // yield flips of ptxas' own order (no moves)
    AllControl,  // moves of any instruction plus yield and reuse edits
    Rescheduled, // moves of any instruction with control codes derived for the new order, plus yield and
                 // reuse edits (LegalityChecker::reschedule)
};

std::optional<SearchSpace> parseSearchSpace(const std::string& name); // mem|all|yield|all+control|rescheduled
std::string spaceName(SearchSpace space);
// Empty when the space can be searched now, else why not, in one sentence.
std::string spaceUnavailableReason(SearchSpace space);
bool spaceHasMoves(SearchSpace space);
// What the GPU-less estimate cannot see in this space, in one sentence; empty when it sees every edit.
// The estimate models issue order and stall counts, not the yield and reuse bits: every yield or reuse
// edit estimates exactly 1.000x, so a search of those edits without a GPU finds nothing and must say why.
std::string estimateBlindSpot(SearchSpace space);
bool spaceHasControl(SearchSpace space);

// Draws random legal edits of one space. The caller owns the random engine, so a search is reproducible
// from its seed. Not thread-safe: it caches the legal control edits of the last schedule it saw
// (enumerating them costs a pass of the checker over the kernel, and a search proposes many times from
// one incumbent).
class EditProposer
{
public:
    EditProposer(const LegalityChecker& checker, SearchSpace space);

    // Applies up to `count` random legal edits to `schedule` (each checked as it is drawn) and returns
    // them; fewer, possibly none, when the space offers fewer from here.
    std::vector<Edit> propose(Schedule& schedule, std::mt19937_64& rng, int count) const;
    // Legal single edits of the space from `schedule` (moves counted as (from, to) pairs): what the
    // search panel shows as "legal moves available".
    size_t countLegal(const Schedule& schedule) const;
    // Every legal single edit of the space from `schedule`, in a fixed order (moves by position, then
    // control edits): the learning agent's action set. In the rescheduled space a move is listed when
    // its order is legal (orderTargets, up to 32 positions away); applyAction derives its codes and may
    // still refuse it.
    std::vector<Edit> legalActions(const Schedule& schedule) const;
    // A uniformly drawn subset of `max` legal actions (all of them when there are at most `max`), in
    // legalActions' order, fixed by `seed`. Moves are drawn from every position's reachable range and
    // tested one at a time (LegalityChecker::MoveTester) until `max` pass, so a kernel with thousands of
    // legal moves is not enumerated whole for the few hundred an agent is shown.
    std::vector<Edit> sampleActions(const Schedule& schedule, size_t max, uint64_t seed) const;
    // Applies one action of legalActions(schedule) as the search replays it (reuse fix-up after a
    // move; derived codes in the rescheduled space) and returns the edits applied, empty when the
    // rescheduled space could not derive codes for it (`schedule` is then unchanged).
    std::vector<Edit> applyAction(Schedule& schedule, const Edit& action) const;
    // Instructions the space may move (empty for the yield space).
    const std::vector<InstrId>& movable() const { return m_movable; }
    SearchSpace space() const { return m_space; }
    // Draws the instruction to move (or whose control bits to edit) in proportion to `weights`, one
    // per original instruction, instead of uniformly; empty for uniform. Every weight must be > 0 for
    // an instruction to stay reachable (the caller adds a floor).
    void setGuide(std::vector<double> weights);
    bool guided() const { return !m_guide.empty(); }
    // One random legal control edit of `schedule` (all+control, rescheduled), as propose draws it after a
    // move: an instruction drawn uniformly (or by the guide), its legal control edits judged alone, kept
    // with probability (their count / the most one instruction can have), then one of them uniformly.
    // Each legal edit is as likely as in a draw from the whole list (by the guide: in proportion to its
    // instruction's weight), at the cost of a few instructions' edits instead of a whole block's.
    // `edited`: instructions to skip (already edited since the move), the drawn one added.
    std::optional<Edit> proposeControlAfterMove(Schedule& schedule, std::mt19937_64& rng,
                                                std::vector<InstrId>& edited) const;

private:
    InstrId drawMovable(std::mt19937_64& rng) const;
    std::optional<Edit> proposeMove(Schedule& schedule, std::mt19937_64& rng) const;
    // A move and the control edits that derive the block's codes for the new order (the move first,
    // then one control edit per instruction whose bits changed); empty when the draw found none.
    std::vector<Edit> proposeRescheduledMove(Schedule& schedule, std::mt19937_64& rng) const;
    std::optional<Edit> proposeControl(Schedule& schedule, std::mt19937_64& rng,
                                       std::vector<Edit>& candidates) const;
    const std::vector<Edit>& controlEditsOf(const Schedule& schedule) const;
    std::vector<Edit> controlEditsByBlock(const Schedule& schedule) const;
    ControlSpace controlSpace() const;
    // One block's legal control edits, per position, judged when first asked for and kept by the
    // block's content (a move changes one block): whole blocks for the lists, single positions for the
    // agent's sampled rows (sampleActions), which mostly need a few of a moved block's instructions.
    struct BlockControl
    {
        std::vector<std::vector<Edit>> at; // by position - block.first
        std::vector<char> known;
    };
    BlockControl& blockControl(const Schedule& schedule, uint32_t block) const;
    void trimBlockControl() const; // before a call keeps entries; never while one holds them
    void inheritControl(uint32_t block, const std::vector<uint32_t>& key, BlockControl& fresh) const;
    // Fills the entry's positions in [from, to) that are not known yet, in one pass of the checker.
    void judgeControl(const Schedule& schedule, uint32_t block, BlockControl& entry, Position from,
                      Position to) const;

    const LegalityChecker& m_checker;
    SearchSpace m_space;
    std::vector<InstrId> m_movable;
    IndexVector<InstrId, double> m_guide; // empty = uniform
    mutable std::discrete_distribution<size_t> m_movableDraw;
    mutable std::discrete_distribution<size_t> m_guideDraw; // an instruction by m_guide
    mutable Schedule m_cachedFor;
    mutable std::vector<Edit> m_cachedControl;
    mutable bool m_cacheValid = false;
    // Legal control edits per block content (blockControl).
    mutable std::map<std::vector<uint32_t>, BlockControl> m_blockControl;
    mutable std::vector<std::vector<uint32_t>> m_lastBlockKey; // per block: the content last looked up
};

} // namespace sassx::search
