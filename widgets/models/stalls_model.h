#pragma once
// Where a kernel's warps wait, by reason: one row per stall reason with its share of the samples in
// the current variant and in the original, and the difference. Fed plain value data (StallsPanel
// computes the rows from the session), so it can be tested on recorded samples.
#include "widgets/models/row_table_model.h"

#include <QString>

#include <optional>

namespace sassx {

struct StallsRow
{
    QString word;
    std::optional<double> variant;  // share of the variant's samples (0..1)
    std::optional<double> original; // share of the original's
};

class StallsModel : public RowTableModel<StallsRow>
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
    using Row = StallsRow;

    explicit StallsModel(QObject* parent = nullptr) : RowTableModel(ColumnCount, parent) {}

protected:
    QVariant cell(const Row& r, int column, int role) const override;
    QString header(int column) const override;
};

} // namespace sassx
