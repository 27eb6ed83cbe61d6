#pragma once
// Where a kernel's warps wait, by reason: one row per stall reason with its share of the samples in
// the current variant and in the original, and the difference. Fed plain value data (StallsPanel
// computes the rows from the session), so it can be tested on recorded samples.
#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace sassx {

class StallsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns
    {
        ReasonColumn,
        VariantColumn,
        OriginalColumn,
        DeltaColumn,
        ColumnCount
    };
    struct Row
    {
        QString word;
        std::optional<double> variant;  // share of the variant's samples (0..1)
        std::optional<double> original; // share of the original's
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setRows(std::vector<Row> rows);
    const std::vector<Row>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<Row> m_rows;
};

} // namespace sassx
