#pragma once
// The kernels of a tune database (docs/tune.md), one row each: time share, status, evaluations,
// isolated speed-up with interval, noise floor, in-program speed-up, edits, verification and the
// backend that made the figures. Fed a TuneDashboardData value; text is the report's own
// (core/tune/tune_report.h), and SortRole gives the numbers behind it so a QSortFilterProxyModel sorts
// numeric columns numerically.
#include "widgets/tune_dashboard_data.h"

#include <QAbstractTableModel>

namespace sassx {

class TuneKernelsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns
    {
        KernelColumn,
        OriginColumn, // Triton, the library that loaded it, or JIT (capture.json)
        ShareColumn,
        StatusColumn,
        EvaluationsColumn,
        SpeedupColumn,
        NoiseColumn,
        InProgramColumn, // measured inside the program (tune_report.h), beside the isolated figure
        EditsColumn,
        VerifiedColumn,
        BackendColumn,
        ColumnCount
    };
    enum Roles
    {
        SortRole = Qt::UserRole + 1, // numbers for numeric columns, text for the others
        KernelRole                   // the kernel's name, whatever the column
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setRows(std::vector<TuneDashboardRow> rows);
    const std::vector<TuneDashboardRow>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant sortValue(const QModelIndex& index) const;

    std::vector<TuneDashboardRow> m_rows;
};

} // namespace sassx
