#pragma once
// Variants of a kernel made by a rule rather than a search (`sassx-cli variants`): random legal edits,
// SIP's unchecked rule as the baseline sassx's model is compared against, the search's own proposals,
// or ptxas' order with every block's control codes derived. Each rule's edits come from the kernel's
// checker (the one with the writer's walls), except SIP's, which checks nothing by design.
#include "core/common/result.h"
#include "core/session/workspace.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace sassx {

namespace search {
class EditProposer;
}

enum class VariantRule : uint8_t
{
    Sassx,       // random legal moves and stall/yield edits
    Sip,         // SIP's rule: memory instructions swapped with a neighbour, unchecked
    Stalls,      // stall raises only
    Yield,       // yield flips only
    Control,     // yield flips and reuse edits
    Rescheduled, // proposals of the rescheduled search space
    Derived,     // ptxas' order, every block's codes derived with stalls as low as the rules allow
};

// The rules' names on the command line ("sassx", "sip", "stalls", "yield", "control", "rescheduled",
// "derived"), in that order.
const std::vector<std::string>& variantRuleNames();
const char* variantRuleName(VariantRule rule);
std::optional<VariantRule> parseVariantRule(const std::string& name);

struct VariantDrawOptions
{
    VariantRule rule = VariantRule::Sassx;
    int maxEdits = 30;       // edits per variant, at most (at least 1)
    bool memoryOnly = false; // Sassx: moves of memory instructions only
};

class VariantDrawer
{
public:
    VariantDrawer(std::shared_ptr<const KernelWorkspace> kernel, VariantDrawOptions options);
    ~VariantDrawer();

    // One draw of the rule on `schedule` (ptxas' order, edited in place): the edits it made, empty when
    // it found no legal edit. Derived is deterministic and fails when the codes cannot be derived.
    Result<std::vector<Edit>> draw(std::mt19937_64& rng, Schedule& schedule);
    // Whether the rule's variants are legal by construction (every rule but Sip).
    bool checked() const { return m_options.rule != VariantRule::Sip; }

private:
    std::shared_ptr<const KernelWorkspace> m_kernel;
    VariantDrawOptions m_options;
    std::unique_ptr<search::EditProposer> m_proposer; // Rescheduled, made on first use
};

} // namespace sassx
