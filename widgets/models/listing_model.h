#pragma once
// Table model over the current variant of the session's kernel: one row per instruction in the
// variant's order (with the variant's control bits), plus one separator row before each basic block.
// Everything shown comes from the SASS model (control bits, text) or the analysis (cycles, live
// registers); tooltips say which.
#include "core/session/kernel_stalls.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <optional>
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
        SamplesColumn, // warp-stall samples of the current variant (GPU), when it has them
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
        SampleShareRole,                      // double: share of the kernel's stall samples; invalid if none
        SampleWordsRole, // QVariantList of QVariantList{word, share of this row's samples}
        SampleHeatRole,  // double 0..1: share relative to the hottest instruction
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
    // A column with nothing to show in this kernel: no predicated instruction (Pred), no stall samples
    // for the current variant (Samples). The view narrows such columns so the operands get the room.
    bool isColumnEmpty(int column) const;
    // The current variant's samples mapped onto the kernel, and the original's (for comparisons).
    const std::optional<KernelStalls>& stalls() const { return m_stalls; }
    const std::optional<KernelStalls>& originalStalls() const { return m_originalStalls; }
    // One sentence per reason for an instruction's samples, compared with the original's when both
    // have samples ("memory wait 55% …; original: 3.7% of samples").
    QString stallsText(uint32_t original) const;

private:
    void rebuild();
    void reloadStalls();

    Session* m_session;
    std::vector<int32_t> m_rows;          // >= 0: position; < 0: separator of block -(v + 1)
    std::vector<int32_t> m_rowOfPosition; // position → row
    std::vector<int> m_cycles;            // per position
    std::vector<int32_t> m_positionOfOriginal;
    std::optional<KernelStalls> m_stalls, m_originalStalls;
    double m_maxShare = 0.0;
};

} // namespace sassx
