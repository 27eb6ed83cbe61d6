#pragma once
// Table model over the current variant of the session's kernel: one row per instruction in the
// variant's order (with the variant's control bits), plus one separator row before each basic block.
// Everything shown comes from the SASS model (control bits, text) or the analysis (cycles, live
// registers); tooltips say which.
#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace sassx {
class Session;

class ListingModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns
    {
        AddressColumn,
        PredicateColumn,
        InstructionColumn,
        StallColumn,
        YieldColumn,
        WriteSbColumn,
        ReadSbColumn,
        WaitColumn,
        ReuseColumn,
        CycleColumn,
        LiveColumn,
        ColumnCount
    };
    enum Roles
    {
        OriginalIndexRole = Qt::UserRole + 1, // int; -1 on separator rows
        PositionRole,                         // int: position in the variant's order; -1 on separators
        IsSeparatorRole,                      // bool
        BlockRole,                            // int: basic block index
        InstrClassRole,                       // int (sassx::InstrClass)
        IsMemoryRole,                         // bool
        StallRole,                            // int 0..15
        MovedRole,                            // bool: not at its original position
        ControlChangedRole,                   // bool: control bits differ from the original
        OpcodeRole,                           // QString: opcode with modifiers (for syntax colours)
        OperandsRole,                         // QString
        BranchTargetRole,                     // qulonglong byte offset, invalid if none
    };

    explicit ListingModel(Session* session, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // Row ↔ instruction lookups (O(1)); -1 when there is none.
    int rowOfOriginal(int originalIndex) const;
    int positionOfOriginal(int originalIndex) const;
    int rowOfPosition(int position) const;
    int positionOfRow(int row) const;
    int originalOfRow(int row) const;
    // Row of the instruction at byte address `offset` in the variant's order.
    int rowOfAddress(uint64_t offset) const;
    // Static issue cycle of each position in the current variant (relative to its block).
    const std::vector<int>& variantCycles() const { return m_cycles; }

    static QString columnToolTip(int column);

private:
    void rebuild();

    Session* m_session;
    std::vector<int32_t> m_rows;          // >= 0: position; < 0: separator of block -(v + 1)
    std::vector<int32_t> m_rowOfPosition; // position → row
    std::vector<int> m_cycles;            // per position
    std::vector<int32_t> m_positionOfOriginal;
};

} // namespace sassx
