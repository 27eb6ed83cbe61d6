#include "widgets/models/stalls_model.h"

#include "core/session/kernel_stalls.h"

#include <QColor>

namespace sassx {

QVariant StallsModel::cell(const Row& r, int column, int role) const
{
    auto percent = [](const std::optional<double>& v) {
        return v ? QVariant(QStringLiteral("%1%").arg(100.0 * *v, 0, 'f', 1)) : QVariant(QStringLiteral("—"));
    };
    if (role == Qt::DisplayRole) {
        switch (column) {
        case ReasonColumn:
            return r.word;
        case VariantColumn:
            return percent(r.variant);
        case OriginalColumn:
            return percent(r.original);
        case DeltaColumn:
            if (!r.variant || !r.original) return QStringLiteral("—");
            return QStringLiteral("%1%2")
                .arg(*r.variant >= *r.original ? QStringLiteral("+") : QString())
                .arg(100.0 * (*r.variant - *r.original), 0, 'f', 1);
        }
    }
    if (role == Qt::ToolTipRole) {
        if (column == DeltaColumn)
            return tr("Difference in percentage points of each launch's samples. Shares move by a few tenths "
                      "of a point between two samplings of the same cubin (docs/status.md, \"Stall sampling "
                      "against Nsight Compute\": run-to-run, H100): smaller differences are noise.");
        return QString::fromStdString(eval::stallWordMeaning(r.word.toStdString()));
    }
    if (role == Qt::TextAlignmentRole && column != ReasonColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::UserRole) { // sort key: the variant's share, else the original's
        return r.variant.value_or(r.original.value_or(0.0));
    }
    return {};
}

QString StallsModel::header(int column) const
{
    switch (column) {
    case ReasonColumn:
        return tr("Reason");
    case VariantColumn:
        return tr("This variant");
    case OriginalColumn:
        return tr("Original");
    case DeltaColumn:
        return tr("Δ points");
    }
    return {};
}

} // namespace sassx
