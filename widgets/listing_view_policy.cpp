// ListingView's Policy Suggestions submenu: what the latest PPO run's policy would do with the
// instruction under the cursor (docs/ppo.md), asked off the UI thread.
#include "widgets/listing_view.h"

#include "core/session/search_runs.h"
#include "core/session/variant_tree.h"
#include "widgets/edit_text.h"

#include <QMenu>
#include <QPointer>

namespace sassx {

void ListingView::addPolicySuggestions(QMenu& menu, Position position, int row)
{
    // The latest PPO run's policy, asked about this instruction in the schedule shown (docs/ppo.md). The
    // policy is consulted when the submenu opens, so the context menu itself never waits for it.
    const SearchRecord* run = m_searches->latestPolicyRun();
    if (!run || !m_variants->kernel()) return;
    QMenu* sub = menu.addMenu(tr("Policy Suggestions"));
    sub->setToolTipsVisible(true);
    const std::string policy = run->outDir + "/policy.pt";
    const search::SearchConfig config = run->config;
    const QString label = QString::fromStdString(run->label());
    connect(sub, &QMenu::aboutToShow, this, [=, this] {
        if (sub->isEmpty()) askPolicy(sub, policy, config, label, position, row);
    });
}

void ListingView::askPolicy(QMenu* sub, const std::string& policy, const search::SearchConfig& config,
                            const QString& runLabel, Position position, int row)
{
    // Loading a policy and scoring every legal action of the schedule takes a while on a large kernel:
    // it runs on the advisor's job thread (one thread, so the advisor is never used by two at once) and
    // the submenu fills when it answers; a menu closed meanwhile simply drops the answer.
    auto kernel = m_variants->kernel();
    if (!kernel) return;
    sub->addAction(tr("Asking the policy…"))->setEnabled(false);
    QPointer<QMenu> target(sub);
    auto advisor = m_policyAdvisor;
    const Schedule schedule = m_variants->schedule();
    m_policyJobs->start(
        [advisor, kernel, config, policy, schedule, position](const JobControl&) {
            return advisor->suggestions(*kernel, config, policy, schedule, position);
        },
        [this, target, policy, config, runLabel, row](Result<std::vector<PolicySuggestion>> suggestions) {
            if (!target) return;
            target->clear();
            fillPolicySuggestions(target, suggestions, policy, config, runLabel, row);
            Q_EMIT policySuggestionsShown(target->actions().size());
        });
}

void ListingView::fillPolicySuggestions(QMenu* sub, const Result<std::vector<PolicySuggestion>>& suggestions,
                                        const std::string& policy, const search::SearchConfig& config,
                                        const QString& runLabel, int row)
{
    if (!suggestions) {
        QAction* a = sub->addAction(tr("Policy unavailable"));
        a->setEnabled(false);
        a->setToolTip(QString::fromStdString(suggestions.message()));
        return;
    }
    if (suggestions->empty()) {
        sub->addAction(tr("No legal edit in the %1 space")
                           .arg(QString::fromStdString(search::spaceName(config.space))))
            ->setEnabled(false);
        return;
    }
    for (const PolicySuggestion& s : *suggestions) {
        QAction* a = sub->addAction(
            tr("%1 — %2%").arg(describeEdit(*m_variants, s.edit)).arg(s.share * 100.0, 0, 'f', 0));
        a->setToolTip(tr("The policy of %1 gives this edit %2% of this instruction's legal edits (%3)")
                          .arg(runLabel)
                          .arg(s.share * 100.0, 0, 'f', 1)
                          .arg(QString::fromStdString(policy)));
        const Edit e = s.edit;
        connect(a, &QAction::triggered, this, [this, e, row] { applyEdit(e, row); });
    }
}

} // namespace sassx
