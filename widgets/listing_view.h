#pragma once
// The SASS listing of the variant tree's current variant (its model follows the tree: listing_feed.h;
// the policy suggestions come from the kept search runs). Selecting an instruction selects it in the
// tree (the dependency gutter draws its edges); dragging a memory instruction moves it (legal drop rows light
// up while dragging; an illegal drop is refused and the checker's reason appears next to the drop row);
// Alt+Up/Down moves any instruction; the context menu edits control bits. Branch targets can be
// followed (Ctrl+J / double click) and returned from (Alt+Left) through a history.
#include "core/session/job_tracker.h"
#include "core/session/policy_advisor.h"

#include <QTableView>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

class QLabel;
class QTimer;

class QMenu;

namespace sassx {
class EditController;
class ListingModel;
class VariantTree;
class SearchRuns;
struct Edit;

class ListingView : public QTableView
{
    Q_OBJECT
public:
    ListingView(VariantTree* variants, SearchRuns* searches, EditController* controller,
                QWidget* parent = nullptr);

    ListingModel* listingModel() const { return m_model; }

    // Rows (not positions) lighting up as legal drop targets; empty unless a drag is in progress.
    bool isDragging() const { return m_dragging; }
    const std::set<int>& legalDropRows() const { return m_legalRows; }
    // The refusal banner shown after an illegal drop or edit (empty when hidden).
    QString refusalText() const;
    QLabel* refusalBanner() const { return m_banner; }
    // A one-line banner at `row`: "Refused <what>: <reason>" (elided to the view; the whole text in its
    // tooltip, in refusalText() and on the status bar). `what` defaults to "this move".
    void showRefusal(int row, const QString& reason, const QString& what = QString());

    bool goToAddress(uint64_t offset);
    bool followBranch();         // current instruction's branch target; pushes history
    bool goBack();               // returns to where the last jump started
    bool moveCurrent(int delta); // Alt+Up/Down
    bool canGoBack() const { return !m_history.empty(); }

    void saveHeaderState() const;
    void restoreHeaderState();
    // Every column shown, in model order, at its default width (part of View ▸ Reset Layout).
    void resetColumns();
    // The instruction column stretches to fill the view, never narrower than minimumInstructionWidth()
    // (below that the listing scrolls sideways).
    void fitInstructionColumn();
    int minimumInstructionWidth() const;
    // The narrowest the view may become (its minimum width): the address and the instruction column's
    // minimum stay readable however wide the docks beside it grow.
    int usableMinimumWidth() const;
    // Columns with nothing to show (ListingModel::isColumnEmpty) narrow to a sliver, so that the
    // operands are not cut off; they come back at their width when they have content.
    void giveWayEmptyColumns();
    bool isColumnNarrowed(int column) const { return m_narrowed.count(column) > 0; }
    int narrowWidth() const;

Q_SIGNALS:
    void historyChanged();
    void statusMessage(const QString& message);
    // The Policy Suggestions submenu was filled with the policy's answer (`actions` entries).
    void policySuggestionsShown(int actions);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void addEditActions(QMenu& menu, Position position, int row);
    void addPolicySuggestions(QMenu& menu, Position position, int row);
    void askPolicy(QMenu* sub, const std::string& policy, const search::SearchConfig& config,
                   const QString& runLabel, Position position, int row);
    void fillPolicySuggestions(QMenu* sub, const Result<std::vector<PolicySuggestion>>& suggestions,
                               const std::string& policy, const search::SearchConfig& config,
                               const QString& runLabel, int row);
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

public:
    // Why the kernel shown cannot be edited at all (editRefusal, core/analysis/arch_model.h), empty when
    // it can: then the listing is read-only (no drag, no control or move actions) and says why.
    QString editRefusal() const;

private:
    void syncFromSession();
    void selectRow(int row, bool pushHistory = false);
    void applyEdit(const Edit& edit, int row);
    void finishDrag(int targetRow);
    void cancelDrag();

    VariantTree* m_variants;
    SearchRuns* m_searches;
    EditController* m_controller;
    ListingModel* m_model;
    QLabel* m_banner;
    QTimer* m_bannerTimer;
    int m_bannerRow = -1;
    QString m_bannerReason, m_bannerWhat, m_bannerFull;

    int m_pressRow = -1;
    QPoint m_pressPos;
    bool m_dragging = false;
    std::optional<Position> m_dragPosition;
    int m_hoverRow = -1;
    std::set<int> m_legalRows;
    std::vector<InstrId> m_history;
    bool m_syncing = false;
    bool m_fitting = false;
    std::map<int, int> m_narrowed; // column -> the width it had before it gave way
    // Keeps the latest PPO run's policy between context menus; used only on m_policyJobs' one thread.
    std::shared_ptr<PolicyAdvisor> m_policyAdvisor = std::make_shared<PolicyAdvisor>();
    std::unique_ptr<JobTracker> m_policyJobs;
};

} // namespace sassx
