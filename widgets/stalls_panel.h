#pragma once
// The Stalls dock: where the current kernel's warps wait, by reason, for the current variant next to
// the original (measured samples only, with their source and period), plus the sampling actions.
// Without samples it says how to get them; without a GPU, that there are none (the listing's Stall
// column is the static stall count of the control bits, a different thing).
#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace sassx {
class VariantTree;
class MeasureQueue;
class StallsModel;

class StallsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit StallsPanel(VariantTree* variants, MeasureQueue* measure, QWidget* parent = nullptr);

    StallsModel* model() const { return m_model; }
    QString statusText() const;
    QPushButton* sampleButton() const { return m_sample; }

public Q_SLOTS:
    void refresh();

private:
    VariantTree* m_variants;
    MeasureQueue* m_measure;
    StallsModel* m_model;
    QTableView* m_table;
    QLabel* m_status;
    QPushButton* m_sample;
};

} // namespace sassx
