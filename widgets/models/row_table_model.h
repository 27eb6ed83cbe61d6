#pragma once
// A flat table over rows of plain values: the base owns the Qt plumbing (row and column counts, the
// horizontal header, a reset when the rows are replaced, index checks) and a model says only what one
// cell shows for one role and what one column is called. Models fed whole from a value (the stalls of a
// kernel, the kernels of a tune database) derive from it; models that follow a live tree or edit their
// data keep their own plumbing.
#include <QAbstractTableModel>

#include <vector>

namespace sassx {

template <typename Row> class RowTableModel : public QAbstractTableModel
{
public:
    explicit RowTableModel(int columns, QObject* parent = nullptr)
        : QAbstractTableModel(parent), m_columns(columns)
    {
    }

    void setRows(std::vector<Row> rows)
    {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
    }
    const std::vector<Row>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const final
    {
        return parent.isValid() ? 0 : int(m_rows.size());
    }
    int columnCount(const QModelIndex& parent = {}) const final { return parent.isValid() ? 0 : m_columns; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const final
    {
        // Views and the model tester ask for the invalid index: an empty answer, not a warning.
        if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)) return {};
        return cell(m_rows[size_t(index.row())], index.column(), role);
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final
    {
        if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= m_columns)
            return {};
        return header(section);
    }

protected:
    // What `row` shows in `column` for `role`; an invalid QVariant for roles the model does not answer.
    virtual QVariant cell(const Row& row, int column, int role) const = 0;
    // The horizontal header's text of `column`.
    virtual QString header(int column) const = 0;

private:
    const int m_columns;
    std::vector<Row> m_rows;
};

} // namespace sassx
