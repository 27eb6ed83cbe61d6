#include "core/session/variant_draws.h"

#include "core/search/random_variants.h"
#include "core/search/search_space.h"

#include <utility>

namespace sassx {

namespace {

// ptxas' order with every block's control codes derived, every stall as low as the rules allow
// (LegalityChecker::reschedule, minimal): the derivation's own test. The edits that make it.
Result<std::vector<Edit>> derivedEdits(const KernelWorkspace& k, Schedule& s)
{
    std::vector<int> blocks;
    for (const auto& b : k.analysis().cfg.blocks)
        blocks.push_back(b.index);
    if (auto why = k.checker().reschedule(s, blocks, true))
        return makeError("cannot derive control codes: " + *why);
    std::vector<Edit> edits;
    for (Position p : s.positions()) {
        const InstrId i = s.order[p];
        const Control& c = s.control[i];
        const Control& o = k.analysis().listing.instructions[i.value()].control;
        if (c.stall != o.stall || c.yield != o.yield || c.reuse != o.reuse)
            edits.push_back(Edit::control(p, c.stall, c.yield, c.reuse));
    }
    return edits;
}

} // namespace

const std::vector<std::string>& variantRuleNames()
{
    static const std::vector<std::string> names = {"sassx",   "sip",         "stalls", "yield",
                                                   "control", "rescheduled", "derived"};
    return names;
}

const char* variantRuleName(VariantRule rule)
{
    return variantRuleNames()[size_t(rule)].c_str();
}

std::optional<VariantRule> parseVariantRule(const std::string& name)
{
    const auto& names = variantRuleNames();
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return VariantRule(i);
    return std::nullopt;
}

VariantDrawer::VariantDrawer(std::shared_ptr<const KernelWorkspace> kernel, VariantDrawOptions options)
    : m_kernel(std::move(kernel)), m_options(options)
{
}

VariantDrawer::~VariantDrawer() = default;

Result<std::vector<Edit>> VariantDrawer::draw(std::mt19937_64& rng, Schedule& s)
{
    const KernelWorkspace& k = *m_kernel;
    const int maxEdits = std::max(1, m_options.maxEdits);
    switch (m_options.rule) {
    case VariantRule::Derived:
        return derivedEdits(k, s);
    case VariantRule::Rescheduled: {
        // 1..maxEdits proposals of the search space, each a move with the control edits deriving its
        // block's codes, or a yield or reuse edit.
        if (!m_proposer)
            m_proposer =
                std::make_unique<search::EditProposer>(k.checker(), search::SearchSpace::Rescheduled);
        std::vector<Edit> edits;
        const int n = std::uniform_int_distribution<int>(1, maxEdits)(rng);
        for (int d = 0; d < n; ++d) {
            auto more = m_proposer->propose(s, rng, 1);
            edits.insert(edits.end(), more.begin(), more.end());
        }
        return edits;
    }
    case VariantRule::Sip:
        return sipRuleEdits(k.analysis(), rng, std::uniform_int_distribution<int>(1, maxEdits)(rng), s);
    case VariantRule::Sassx:
    case VariantRule::Stalls:
    case VariantRule::Yield:
    case VariantRule::Control:
        break;
    }
    RandomVariantOptions opts;
    opts.maxEdits = maxEdits;
    opts.memoryOnly = m_options.memoryOnly;
    opts.onlyRaiseStalls = m_options.rule == VariantRule::Stalls;
    opts.yieldOnly = m_options.rule == VariantRule::Yield || m_options.rule == VariantRule::Control;
    opts.withReuse = m_options.rule == VariantRule::Control;
    return randomLegalEdits(k.checker(), rng, opts, s);
}

} // namespace sassx
