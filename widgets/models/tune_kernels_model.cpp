#include "widgets/models/tune_kernels_model.h"

namespace sassx {

QVariant TuneKernelsModel::sortValue(const TuneDashboardRow& r, int column) const
{
    switch (column) {
    case ShareColumn:
        return r.timeShare;
    case EvaluationsColumn:
        return r.evaluations;
    case SpeedupColumn:
        return r.hasBest ? r.speedup : 0.0;
    case NoiseColumn:
        return r.noiseFloor;
    case InProgramColumn:
        return r.inProgramTimed ? r.inProgramSpeedup : 0.0;
    case EditsColumn:
        return r.edits;
    default:
        return cell(r, column, Qt::DisplayRole);
    }
}

QVariant TuneKernelsModel::cell(const TuneDashboardRow& r, int column, int role) const
{
    if (role == KernelRole) return r.kernel;
    if (role == SortRole) return sortValue(r, column);
    if (role == Qt::TextAlignmentRole) {
        const bool numeric = column == ShareColumn || column == EvaluationsColumn || column == EditsColumn;
        return int((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole) {
        QString tip = r.kernel;
        if (!r.note.isEmpty()) tip += QStringLiteral("\n") + r.note;
        if (column == InProgramColumn)
            return r.inProgramTimed ? r.inProgramDetail
                                    : tr("Not measured inside the program: sassx_capture time --tune-dir DIR "
                                         "--before ... --after ... writes DIR/program-time.json");
        if (column == OriginColumn && !r.originFile.isEmpty()) return r.originFile;
        if (r.estimate) tip += QStringLiteral("\n") + tr("Figures from the estimate backend: not measured.");
        return tip;
    }
    if (role != Qt::DisplayRole) return {};
    switch (column) {
    case KernelColumn:
        return r.kernel;
    case OriginColumn:
        return r.originText.isEmpty() ? QStringLiteral("-") : r.originText;
    case ShareColumn:
        return QStringLiteral("%1%").arg(r.timeShare * 100.0, 0, 'f', 1);
    case StatusColumn:
        return r.status;
    case EvaluationsColumn:
        return r.evaluations;
    case SpeedupColumn:
        return r.speedupText;
    case NoiseColumn:
        return r.noiseText;
    case InProgramColumn:
        return r.inProgramText;
    case EditsColumn:
        return r.edits < 0 ? QStringLiteral("-") : QString::number(r.edits);
    case VerifiedColumn:
        return r.verifiedText;
    case BackendColumn:
        return r.backendLabel.isEmpty() ? QStringLiteral("-") : r.backendLabel;
    default:
        return {};
    }
}

QString TuneKernelsModel::header(int column) const
{
    switch (column) {
    case KernelColumn:
        return tr("Kernel");
    case OriginColumn:
        return tr("Origin");
    case ShareColumn:
        return tr("Time share");
    case StatusColumn:
        return tr("Status");
    case EvaluationsColumn:
        return tr("Evaluations");
    case SpeedupColumn:
        return tr("Isolated speed-up [95% interval]");
    case NoiseColumn:
        return tr("Noise floor");
    case InProgramColumn:
        return tr("In-program speed-up [interval]");
    case EditsColumn:
        return tr("Edits");
    case VerifiedColumn:
        return tr("Verified");
    case BackendColumn:
        return tr("Backend");
    default:
        return {};
    }
}

} // namespace sassx
