#include "widgets/edit_text.h"

#include "core/session/variant_tree.h"

#include <QCoreApplication>

namespace sassx {

namespace {

QString address(Position position)
{
    return QStringLiteral("%1").arg(uint64_t(position.value()) * 16, 4, 16, QLatin1Char('0'));
}

QString tr(const char* text)
{
    return QCoreApplication::translate("sassx::EditText", text);
}

} // namespace

QString describeEdit(const VariantTree& variants, const Edit& edit)
{
    const auto analysis = variants.analysis();
    const Schedule& s = variants.schedule();
    const Position at = edit.kind == Edit::Kind::Move ? edit.from : edit.at;
    const Position end = s.order.endIndex();
    if (!analysis || at >= end || (edit.kind == Edit::Kind::Move && edit.to >= end))
        return QString::fromStdString(edit.describe());
    const QString opcode = QString::fromStdString(analysis->listing.instructions[s.order[at].value()].opcode);
    if (edit.kind == Edit::Kind::Move)
        return tr("move %1 at %2 to %3").arg(opcode, address(edit.from), address(edit.to));
    QStringList fields;
    if (edit.stall) fields << tr("stall %1").arg(*edit.stall);
    if (edit.yield) fields << tr("yield %1").arg(*edit.yield);
    // A cleared yield bit on an instruction with reuse flags: say which of the two distinct edits.
    if (edit.yield && *edit.yield == 0 && (s.control[s.order[at]].reuse & 7))
        fields << (edit.reuse && (*edit.reuse & 7) == 0 ? tr("reuse flags cleared") : tr("reuse flags kept"));
    if (edit.reuse) fields << tr("reuse mask %1").arg(*edit.reuse);
    return tr("%1 of %2 at %3").arg(fields.join(QStringLiteral(", ")), opcode, address(edit.at));
}

} // namespace sassx
