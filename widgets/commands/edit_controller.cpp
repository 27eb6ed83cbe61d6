#include "widgets/commands/edit_controller.h"

#include "widgets/edit_text.h"

#include "core/session/variant_tree.h"
#include "core/session/workspace.h"
#include "widgets/commands/variant_edit_command.h"

#include <QUndoStack>

#include <algorithm>
#include <optional>

namespace sassx {

EditController::EditController(VariantTree* variants, QUndoStack* undoStack, QObject* parent)
    : QObject(parent), m_variants(variants), m_undoStack(undoStack)
{
}

QString EditController::shownAddresses(const std::string& message) const
{
    const auto analysis = m_variants->analysis();
    if (!analysis) return QString::fromStdString(message);
    return QString::fromStdString(withScheduleAddresses(message, *analysis, m_variants->schedule()));
}

EditOutcome EditController::check(const Edit& edit) const
{
    const LegalityReport report = m_variants->checkEdits(m_variants->currentVariantId(), {edit});
    if (report.legal()) return {true, {}};
    // The checker names instructions by ptxas' addresses; the listing shows this variant's.
    QString reason = shownAddresses(report.hazards.front().message);
    if (report.hazards.size() > 1)
        reason += tr(" (and %n more hazard(s))", nullptr, int(report.hazards.size() - 1));
    return {false, reason};
}

EditOutcome EditController::apply(const Edit& edit)
{
    const EditOutcome verdict = check(edit);
    std::vector<Edit> edits{edit};
    QString text = describeEdit(*m_variants, edit);
    QString derived;
    if (!verdict.accepted) {
        const LegalityChecker* checker = m_variants->checker();
        std::optional<Result<std::pair<std::vector<Edit>, Schedule>>> r;
        if (m_derive && checker && edit.kind == Edit::Kind::Move)
            r = checker->rescheduler().rescheduledMove(m_variants->schedule(), edit.from, edit.to);
        if (!r || !*r) {
            Q_EMIT refused(edit, verdict.reason);
            return verdict;
        }
        edits = (*r)->first;
        derived = tr("with control codes derived for the new order: %n instruction(s) changed", nullptr,
                     int(edits.size() - 1));
        text += QStringLiteral(" (") + derived + QStringLiteral(")");
    }
    push(edits, text);
    return {true, derived};
}

EditOutcome EditController::applyFfmaInterleave(InterleaveReuse reuse)
{
    const auto kernel = m_variants->kernel();
    if (!kernel) return {false, tr("No kernel is open")};
    const PatternEdits named = interleaveEdits(*kernel, m_variants->schedule(), reuse);
    if (named.edits.empty()) {
        if (named.runs == 0) return {false, tr("No run of 8 or more FFMAs in this kernel")};
        return {false, named.refused.empty()
                           ? tr("No FFMA in the %n run(s) caches its Rb operand where the pattern edits",
                                nullptr, named.runs)
                           : shownAddresses(named.refused.front())};
    }
    const QString text = QString::fromLatin1(interleavePatternName(reuse)) + QStringLiteral(": ") +
                         tr("%n edit(s)", nullptr, int(named.edits.size())) +
                         tr(" in %n FFMA run(s)", nullptr, named.runs);
    push(named.edits, text);
    return {true, named.refused.empty()
                      ? QString()
                      : tr("%n refused by the checker", nullptr, int(named.refused.size()))};
}

void EditController::push(const std::vector<Edit>& edits, const QString& text)
{
    const VariantRecord* current = m_variants->currentVariant();
    std::optional<VariantRecord> before;
    VariantRecord after;
    if (current->isOriginal()) {
        after.id = m_variants->nextVariantId();
        after.parent = current->id;
        after.name = m_variants->nextVariantName().toStdString();
    } else {
        before = *current;
        after = *current;
        after.figures.reset(); // figures describe the schedule before this edit
        after.stalls.reset();
    }
    after.edits.insert(after.edits.end(), edits.begin(), edits.end());
    m_undoStack->push(new VariantEditCommand(m_variants, before, after, current->id, text));
}

std::vector<Position> EditController::legalTargets(Position position) const
{
    const LegalityChecker* checker = m_variants->checker();
    if (!checker || position >= m_variants->schedule().order.endIndex()) return {};
    std::vector<Position> targets = checker->legalTargets(m_variants->schedule(), position);
    if (m_derive) {
        // Also where the move is legal with derived control codes (what apply() then does).
        for (const auto& [t, s] : checker->rescheduler().rescheduledTargets(m_variants->schedule(), position))
            if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
        std::sort(targets.begin(), targets.end());
    }
    return targets;
}

QString EditController::whyNoTarget(Position position) const
{
    const auto analysis = m_variants->analysis();
    const LegalityChecker* checker = m_variants->checker();
    const Schedule& s = m_variants->schedule();
    if (!analysis || !checker || position >= s.order.endIndex()) return tr("No kernel is open");
    const auto& cfg = analysis->cfg;
    const int block = blockAt(cfg, position);
    QString reason;
    bool derivable = false;
    for (const int delta : {1, -1}) {
        const int64_t t = int64_t(position.value()) + delta;
        if (t < 0 || size_t(t) >= s.order.size()) continue;
        const Position target = position + delta;
        if (blockAt(cfg, target) != block) continue;
        const Edit move = Edit::move(position, target);
        const EditOutcome verdict = check(move);
        if (reason.isEmpty()) reason = verdict.reason;
        if (!m_derive && checker->rescheduler().rescheduledMove(s, position, target)) derivable = true;
    }
    if (reason.isEmpty())
        return tr(
            "No legal position: the instruction is alone in its basic block, and block starts stay fixed");
    QString line = tr("No legal position: %1").arg(reason);
    if (derivable)
        line +=
            tr(" — a move becomes legal with derived control codes (Edit ▸ Derive Control Codes for Moves)");
    return line;
}

std::vector<StallChoice> EditController::stallChoices(Position position) const
{
    std::vector<StallChoice> out;
    const Schedule& s = m_variants->schedule();
    if (position >= s.order.endIndex()) return out;
    const uint8_t current = s.control[s.order[position]].stall;
    for (int v = 0; v <= 15; ++v) {
        StallChoice c;
        c.stall = v;
        if (v == current) {
            c.allowed = true;
        } else {
            const EditOutcome verdict =
                check(Edit::control(position, uint8_t(v), std::nullopt, std::nullopt));
            c.allowed = verdict.accepted;
            c.reason = verdict.reason;
        }
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace sassx
