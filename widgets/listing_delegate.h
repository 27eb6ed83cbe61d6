#pragma once
// Paints listing rows: block separators as bands, opcodes coloured by class (memory instructions stand
// out), the stall count as a small bar, and changed control bits / moved instructions marked so a
// variant's differences from the original are visible at a glance. Stall samples: a heat tint and a
// bar split by reason.
#include <QStyledItemDelegate>

namespace sassx {

class ListingDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    // Colour of an opcode of this instruction class (sassx::InstrClass as int).
    static QColor opcodeColor(int instrClass, bool isMemory);
    // Colour of a stall reason's word (eval::stallWord) in bars and charts.
    static QColor stallWordColor(const QString& word);
};

} // namespace sassx
