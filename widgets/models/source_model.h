#pragma once
// The kernel's source lines, one row each: where (file:line), how many instructions came from it, their
// share of the current variant's stall samples, how many of them the current variant moved or gave
// other control bits, and the line's text. Fed plain values (SourcePanel builds them from the variant
// tree), so a test can feed it recorded data.
#include "core/session/source_lines.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace sassx {

struct SourceLines
{
    std::shared_ptr<const SourceMap> map;
    std::vector<SourceLineSummary> lines; // summarizeSourceLines over `map`
    bool hasSamples = false;              // the samples are the current variant's
    bool hasVariant = false;              // the current variant is not the original
};

class SourceModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns
    {
        LineColumn,
        InstructionsColumn,
        SamplesColumn,
        ChangedColumn,
        TextColumn,
        ColumnCount
    };
    enum Roles
    {
        InstructionsRole = Qt::UserRole + 1, // QVariantList of original instruction indices
        SortRole,                            // what the column sorts by (numbers as numbers)
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setLines(SourceLines lines);
    const SourceLines& lines() const { return m_lines; }
    // The row of the source line original instruction `original` came from; -1 when none.
    int rowOfInstruction(InstrId original) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString location(const SourceLineSummary& line) const;
    QVariant toolTip(const SourceLineSummary& line, int column) const;

    SourceLines m_lines;
    uint64_t m_totalSamples = 0;
    IndexVector<InstrId, int> m_rowOfInstruction;
};

} // namespace sassx
