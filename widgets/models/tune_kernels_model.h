#pragma once
// The kernels of a tune database (docs/tune.md), one row each: time share, status, evaluations,
// isolated speed-up with interval, noise floor, in-program speed-up, edits, verification and the
// backend that made the figures. Fed a TuneDashboardData value; text is the report's own
// (core/tune/tune_report.h), and SortRole gives the numbers behind it so a QSortFilterProxyModel sorts
// numeric columns numerically.
#include "widgets/models/row_table_model.h"
#include "widgets/tune_dashboard_data.h"

namespace sassx {

class TuneKernelsModel : public RowTableModel<TuneDashboardRow>
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

    explicit TuneKernelsModel(QObject* parent = nullptr) : RowTableModel(ColumnCount, parent) {}

protected:
    QVariant cell(const TuneDashboardRow& r, int column, int role) const override;
    QString header(int column) const override;

private:
    QVariant sortValue(const TuneDashboardRow& r, int column) const;
};

} // namespace sassx
