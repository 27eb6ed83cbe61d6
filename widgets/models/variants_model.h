#pragma once
// Tree model of the session's variants (original → edits), with each variant's figures and where they
// came from. The name column is editable (rename).
#include <QAbstractItemModel>

#include <map>
#include <vector>

namespace sassx {
class Session;
struct VariantRecord;

class VariantsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Columns
    {
        NameColumn,
        EditsColumn,
        SpeedupColumn,
        IntervalColumn,
        CorrectColumn,
        SourceColumn,
        ColumnCount
    };
    enum Roles
    {
        VariantIdRole = Qt::UserRole + 1, // int
        IsCurrentRole,                    // bool
        HasFiguresRole,                   // bool
        SpeedupRole,                      // double (baseline / variant), invalid without timing
        SourceLabelRole,                  // QString: "estimate", "measured on …"
        MeasuringRole,                    // bool: an evaluation is running for it
    };

    explicit VariantsModel(Session* session, QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    QModelIndex indexOfVariant(int id, int column = 0) const;
    int variantIdOf(const QModelIndex& index) const;

private:
    void rebuild();
    void variantChanged(int id);
    const VariantRecord* record(const QModelIndex& index) const;

    Session* m_session;
    std::map<int, std::vector<int>> m_children; // parent id (-1 = root) → child ids
    std::map<int, int> m_parent;
    std::map<int, bool> m_measuring;
};

} // namespace sassx
