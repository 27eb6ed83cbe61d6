#include "widgets/listing_delegate.h"

#include "core/session/kernel_stalls.h"

#include <cmath>

#include "widgets/models/listing_model.h"

#include <QApplication>
#include <QPainter>

namespace sassx {

QColor ListingDelegate::opcodeColor(int instrClass, bool isMemory)
{
    if (isMemory) return QColor(0xb3, 0x3c, 0x00); // memory: the instructions worth moving
    switch (InstrClass(instrClass)) {
    case InstrClass::Branch:
        return QColor(0x1f, 0x5f, 0xbf);
    case InstrClass::Barrier:
        return QColor(0xc0, 0x00, 0x40);
    case InstrClass::Tensor:
        return QColor(0x00, 0x80, 0x80);
    case InstrClass::Mufu:
    case InstrClass::Conversion:
        return QColor(0x7a, 0x3f, 0xb0);
    case InstrClass::Uniform:
    case InstrClass::LoadConst:
    case InstrClass::SpecialReg:
        return QColor(0x55, 0x6b, 0x2f);
    default:
        return QApplication::palette().color(QPalette::Text);
    }
}

QColor ListingDelegate::stallWordColor(const QString& word)
{
    // Memory waits red, MIO/shared orange, fixed latency yellow, issue-side (not selected, dispatch)
    // greys, issuing green, barriers blue; anything else purple.
    const QColor other(0x94, 0x67, 0xbd);
    const auto reason = eval::parseStallWord(word.toStdString());
    if (!reason) return other;
    switch (*reason) {
    case eval::StallReason::LongScoreboard:
        return QColor(0xd6, 0x27, 0x28);
    case eval::StallReason::ShortScoreboard:
        return QColor(0xff, 0x7f, 0x0e);
    case eval::StallReason::MioThrottle:
        return QColor(0xf4, 0xb0, 0x6a);
    case eval::StallReason::LgThrottle:
        return QColor(0xe3, 0x77, 0xc2);
    case eval::StallReason::Wait:
        return QColor(0xe6, 0xc2, 0x29);
    case eval::StallReason::MathPipeThrottle:
        return QColor(0x8c, 0x56, 0x4b);
    case eval::StallReason::Barrier:
        return QColor(0x1f, 0x77, 0xb4);
    case eval::StallReason::WarpgroupArrive:
        return QColor(0x17, 0xbe, 0xcf);
    case eval::StallReason::Selected:
        return QColor(0x2c, 0xa0, 0x2c);
    case eval::StallReason::NotSelected:
        return QColor(0xa0, 0xa0, 0xa0);
    case eval::StallReason::DispatchStall:
        return QColor(0x70, 0x70, 0x70);
    case eval::StallReason::BranchResolving:
        return QColor(0x39, 0x3b, 0x79);
    case eval::StallReason::NoInstructions:
        return QColor(0xbc, 0xbd, 0x22);
    default:
        return other;
    }
}

QSize ListingDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    if (index.column() == ListingModel::StallColumn) s.setWidth(std::max(s.width(), 54));
    return s;
}

void ListingDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                            const QModelIndex& index) const
{
    const bool separator = index.data(ListingModel::IsSeparatorRole).toBool();
    const QPalette& pal = option.palette;
    painter->save();
    if (separator) {
        painter->fillRect(option.rect, pal.color(QPalette::AlternateBase).darker(108));
        painter->setPen(pal.color(QPalette::Mid));
        painter->drawLine(option.rect.topLeft(), option.rect.topRight());
        const QString text = index.data().toString();
        if (!text.isEmpty()) {
            QFont f = option.font;
            f.setBold(true);
            painter->setFont(f);
            painter->setPen(pal.color(QPalette::Text));
            // The label may run across the narrow control columns: no clipping to this cell.
            painter->setClipping(false);
            painter->drawText(option.rect.adjusted(4, 0, 400, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
        }
        painter->restore();
        return;
    }

    const bool selected = option.state & QStyle::State_Selected;
    const bool memory = index.data(ListingModel::IsMemoryRole).toBool();
    const int column = index.column();
    QColor background = selected ? pal.color(QPalette::Highlight) : QColor();
    if (!selected && memory) background = QColor(255, 236, 214);
    // The instructions of the source line chosen in the Source dock.
    if (!selected && index.data(ListingModel::SourceHighlightRole).toBool())
        background = QColor(214, 232, 255);
    const bool controlChanged = index.data(ListingModel::ControlChangedRole).toBool();
    if (!selected && controlChanged && column >= ListingModel::StallColumn &&
        column <= ListingModel::ReuseColumn)
        background = QColor(255, 246, 160);
    if (background.isValid()) painter->fillRect(option.rect, background);
    const QColor text = selected ? pal.color(QPalette::HighlightedText) : pal.color(QPalette::Text);
    const QRect r = option.rect.adjusted(4, 0, -4, 0);
    painter->setFont(option.font);

    switch (column) {
    case ListingModel::InstructionColumn: {
        const QString opcode = index.data(ListingModel::OpcodeRole).toString();
        const QString operands = index.data(ListingModel::OperandsRole).toString();
        QFont f = option.font;
        f.setBold(memory);
        painter->setFont(f);
        painter->setPen(selected ? text
                                 : opcodeColor(index.data(ListingModel::InstrClassRole).toInt(), memory));
        painter->drawText(r, Qt::AlignVCenter | Qt::AlignLeft, opcode);
        const int w = QFontMetrics(f).horizontalAdvance(opcode + QLatin1Char(' '));
        painter->setFont(option.font);
        painter->setPen(text);
        painter->drawText(r.adjusted(w, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
                          option.fontMetrics.elidedText(operands, Qt::ElideRight, r.width() - w));
        break;
    }
    case ListingModel::StallColumn: {
        const int stall = index.data(ListingModel::StallRole).toInt();
        const int barMax = r.width() - option.fontMetrics.horizontalAdvance(QStringLiteral("15 "));
        const QRect bar(r.left(), r.center().y() - 3, std::max(1, barMax * stall / 15), 6);
        painter->fillRect(bar, selected ? text : QColor(0x4a, 0x90, 0xd9));
        painter->setPen(text);
        painter->drawText(r, Qt::AlignVCenter | Qt::AlignRight, QString::number(stall));
        break;
    }
    case ListingModel::SamplesColumn: {
        const QVariant heat = index.data(ListingModel::SampleHeatRole);
        if (!heat.isValid()) break;
        // The heat (share relative to the hottest instruction) tints the cell; the bar below splits this
        // instruction's samples by reason.
        if (!selected && heat.toDouble() > 0)
            painter->fillRect(option.rect,
                              QColor(220, 40, 20, int(20 + 150 * std::min(1.0, heat.toDouble()))));
        const QRect bar(r.left(), option.rect.bottom() - 4, r.width(), 3);
        int x = bar.left();
        for (const QVariant& w : index.data(ListingModel::SampleWordsRole).toList()) {
            const QVariantList pair = w.toList();
            const int width = int(std::lround(bar.width() * pair.value(1).toDouble()));
            painter->fillRect(QRect(x, bar.top(), width, bar.height()),
                              stallWordColor(pair.value(0).toString()));
            x += width;
        }
        // The share, then the top reason in words where the column is wide enough.
        painter->setPen(text);
        const QString share = index.data().toString();
        painter->drawText(r.adjusted(0, 0, 0, -3), Qt::AlignVCenter | Qt::AlignLeft, share);
        const int used = option.fontMetrics.horizontalAdvance(share + QLatin1Char(' '));
        const QVariantList words = index.data(ListingModel::SampleWordsRole).toList();
        if (!share.isEmpty() && !words.isEmpty() &&
            r.width() - used > option.fontMetrics.horizontalAdvance(QStringLiteral("MIO w")))
            painter->drawText(r.adjusted(used, 0, 0, -3), Qt::AlignVCenter | Qt::AlignLeft,
                              option.fontMetrics.elidedText(words.front().toList().value(0).toString(),
                                                            Qt::ElideRight, r.width() - used));
        break;
    }
    case ListingModel::AddressColumn: {
        QFont f = option.font;
        // Moved instructions: italic address and a marker at the left edge.
        const bool moved = index.data(ListingModel::MovedRole).toBool();
        f.setItalic(moved);
        painter->setFont(f);
        painter->setPen(selected ? text : pal.color(QPalette::PlaceholderText));
        painter->drawText(r, Qt::AlignVCenter | Qt::AlignLeft, index.data().toString());
        if (moved)
            painter->fillRect(QRect(option.rect.left(), option.rect.top() + 1, 3, option.rect.height() - 2),
                              QColor(0xe0, 0x8a, 0x00));
        break;
    }
    default: {
        painter->setPen(column == ListingModel::PredicateColumn && !selected ? QColor(0x80, 0x50, 0x90)
                                                                             : text);
        const int align = index.data(Qt::TextAlignmentRole).toInt();
        painter->drawText(r, align, index.data().toString());
    }
    }
    painter->restore();
}

} // namespace sassx
