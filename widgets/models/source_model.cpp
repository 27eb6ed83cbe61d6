#include "widgets/models/source_model.h"

#include <limits>

namespace sassx {

void SourceModel::setLines(SourceLines lines)
{
    beginResetModel();
    m_lines = std::move(lines);
    m_totalSamples = 0;
    m_rowOfInstruction.clear();
    for (size_t r = 0; r < m_lines.lines.size(); ++r) {
        m_totalSamples += m_lines.lines[r].samples;
        for (InstrId i : m_lines.lines[r].instructions) {
            if (i >= m_rowOfInstruction.endIndex()) m_rowOfInstruction.resize(size_t(i.value()) + 1, -1);
            m_rowOfInstruction[i] = int(r);
        }
    }
    endResetModel();
}

int SourceModel::rowOfInstruction(InstrId original) const
{
    return original < m_rowOfInstruction.endIndex() ? m_rowOfInstruction[original] : -1;
}

int SourceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_lines.lines.size());
}

int SourceModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString SourceModel::location(const SourceLineSummary& l) const
{
    if (l.file < 0 || !m_lines.map) return tr("(no source line)");
    return QStringLiteral("%1:%2")
        .arg(QString::fromStdString(m_lines.map->files[size_t(l.file)].name))
        .arg(l.line);
}

QVariant SourceModel::toolTip(const SourceLineSummary& l, int column) const
{
    switch (column) {
    case LineColumn:
        return l.file < 0 ? tr("Instructions the line tables give no source line for.")
                          : QStringLiteral("%1:%2")
                                .arg(QString::fromStdString(m_lines.map->files[size_t(l.file)].path))
                                .arg(l.line);
    case InstructionsColumn:
        return tr("%n instruction(s) of the kernel came from this line.", nullptr,
                  int(l.instructions.size()));
    case SamplesColumn:
        return m_lines.hasSamples
                   ? tr("%1 of the current variant's %2 warp-stall samples wait at this line's "
                        "instructions.")
                         .arg(l.samples)
                         .arg(m_totalSamples)
                   : tr("No stall samples for the current variant (Variant ▸ Sample Stalls).");
    case ChangedColumn:
        return m_lines.hasVariant ? tr("Against the original: %1 moved, %2 with other control bits.")
                                        .arg(l.moved)
                                        .arg(l.controlChanged)
                                  : tr("The original is shown: nothing changed.");
    case TextColumn: {
        const SourceFile* f = l.file >= 0 ? &m_lines.map->files[size_t(l.file)] : nullptr;
        if (f && f->foundAt.empty())
            return tr("%1 was not found (looked at its recorded path and beside the input).")
                .arg(QString::fromStdString(f->path));
        return f ? tr("Read from %1").arg(QString::fromStdString(f->foundAt)) : QVariant();
    }
    }
    return {};
}

QVariant SourceModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const SourceLineSummary& l = m_lines.lines[size_t(index.row())];
    const int column = index.column();
    SourceLocation at;
    at.file = l.file;
    at.line = l.line;
    switch (role) {
    case InstructionsRole: {
        QVariantList list;
        for (InstrId i : l.instructions)
            list << int(i.value());
        return list;
    }
    case SortRole:
        switch (column) {
        case LineColumn:
            // By file, then line; the unmapped instructions last.
            return l.file < 0 ? std::numeric_limits<qlonglong>::max() : (qlonglong(l.file) << 32) | l.line;
        case InstructionsColumn:
            return qulonglong(l.instructions.size());
        case SamplesColumn:
            return qulonglong(l.samples);
        case ChangedColumn:
            return l.changed;
        case TextColumn:
            return m_lines.map ? QString::fromStdString(std::string(m_lines.map->sourceText(at))).trimmed()
                               : QString();
        }
        return {};
    case Qt::DisplayRole:
        switch (column) {
        case LineColumn:
            return location(l);
        case InstructionsColumn:
            return qulonglong(l.instructions.size());
        case SamplesColumn:
            if (!m_lines.hasSamples || !m_totalSamples) return {};
            return QStringLiteral("%1%").arg(100.0 * double(l.samples) / double(m_totalSamples), 0, 'f', 1);
        case ChangedColumn:
            return m_lines.hasVariant ? QVariant(l.changed) : QVariant();
        case TextColumn:
            // Without its indentation: the dock is narrow, and the line number says where it is.
            return m_lines.map ? QString::fromStdString(std::string(m_lines.map->sourceText(at))).trimmed()
                               : QString();
        }
        return {};
    case Qt::TextAlignmentRole:
        return int(column == LineColumn || column == TextColumn ? Qt::AlignLeft | Qt::AlignVCenter
                                                                : Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return toolTip(l, column);
    }
    return {};
}

QVariant SourceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case LineColumn:
            return tr("The source file and line (from the cubin's line tables).");
        case InstructionsColumn:
            return tr("Instructions that came from the line.");
        case SamplesColumn:
            return tr("Share of the current variant's warp-stall samples at the line's instructions (GPU).");
        case ChangedColumn:
            return tr("Instructions of the line the current variant moved or gave other control bits.");
        case TextColumn:
            return tr("The line's text, when its file is found.");
        }
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case LineColumn:
        return tr("Line");
    case InstructionsColumn:
        return tr("Instr.");
    case SamplesColumn:
        return tr("Samples");
    case ChangedColumn:
        return tr("Changed");
    case TextColumn:
        return tr("Text");
    }
    return {};
}

} // namespace sassx
