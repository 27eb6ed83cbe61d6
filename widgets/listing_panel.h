#pragma once
// The listing with its dependency gutter and a find bar (regular expressions over the instruction
// text). What the main window docks as "Listing".
#include <QWidget>

class QLabel;
class QLineEdit;
class QSplitter;

namespace sassx {
class DependencyGutter;
class EditController;
class ListingView;
class VariantTree;
class SearchRuns;

class ListingPanel : public QWidget
{
    Q_OBJECT
public:
    ListingPanel(VariantTree* variants, SearchRuns* searches, EditController* controller,
                 QWidget* parent = nullptr);

    ListingView* view() const { return m_view; }
    DependencyGutter* gutter() const { return m_gutter; }
    // Gutter | listing; its state is part of the saved layout.
    QSplitter* splitter() const { return m_body; }

    void showFind();
    // Selects the next (or previous) instruction whose text matches `pattern` (a regular expression);
    // false when none does or the pattern is invalid (the bar says which).
    bool find(const QString& pattern, bool forward = true);
    // What the find bar says: "3 of 12", "no match", or why the pattern is invalid.
    QString findStatus() const;

private:
    VariantTree* m_variants;
    ListingView* m_view;
    DependencyGutter* m_gutter;
    QWidget* m_findBar;
    QLineEdit* m_findEdit;
    QLabel* m_findStatus;
    QLabel* m_notices;
    QSplitter* m_body;
};

} // namespace sassx
