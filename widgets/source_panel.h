#pragma once
// The Source dock: the current kernel's source lines (Triton's .py, CUDA built with -lineinfo) with
// their instructions, stall samples and the changes the current variant made, beside the SASS.
// Choosing a line highlights its instructions in the listing and selects the first of them; selecting
// an instruction in the listing chooses its line here. A check box shows the listing's Source column
// (hidden by default: it would not fit beside the others at the default size). Without line tables it
// says so.
#include <QWidget>

#include <cstdint>
#include <vector>

class QCheckBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace sassx {
class ListingModel;
class ListingView;
class SourceModel;
class VariantTree;

class SourcePanel : public QWidget
{
    Q_OBJECT
public:
    SourcePanel(VariantTree* variants, ListingView* listing, QWidget* parent = nullptr);

    SourceModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QCheckBox* columnToggle() const { return m_column; }
    QString statusText() const;
    // The source model's row of the chosen line; -1 when none is.
    int currentLine() const;
    // Chooses the line at the source model's `row`, as a click on it does.
    void chooseLine(int row);

public Q_SLOTS:
    void refresh();

private:
    void followSelection(int original);
    void lineChosen(int row, bool fromUser);
    void showListingColumn(bool on);
    void fitListingColumn();

    VariantTree* m_variants;
    ListingView* m_view;
    ListingModel* m_listing;
    SourceModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_status;
    QCheckBox* m_column;
    bool m_syncing = false;
};

} // namespace sassx
