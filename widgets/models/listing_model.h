#pragma once
// Table model over one variant of a kernel: one row per instruction in the variant's order (with the
// variant's control bits), plus one separator row before each basic block. Everything shown comes from
// the SASS model (control bits, text) or the analysis (cycles, live registers); tooltips say which.
//
// The model owns what it shows: a ListingData value (the immutable analysis, shared, and a copy of the
// schedule) and the stall samples, handed to it whenever they change (listing_feed.h does that for the
// variant tree's current variant). It never reads a session.
#include "core/session/kernel_stalls.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace sassx {

struct SourceMap;

// The rows' source: a kernel's analysis and the schedule of the variant shown (an empty listing when
// there is no analysis, or the schedule does not fit it).
struct ListingData
{
    std::shared_ptr<const KernelAnalysis> analysis;
    Schedule schedule;
};

// Warp-stall samples of the variant shown and of the original, mapped onto the kernel.
struct ListingStalls
{
    std::optional<KernelStalls> variant, original;
    bool showsOriginal = true; // the variant shown is the original (nothing to compare with)
};

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
        SourceColumn, // the source file:line the instruction came from (line tables), when the cubin has them
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
        SampleWordsRole,     // QVariantList of QVariantList{word, share of this row's samples}
        SampleHeatRole,      // double 0..1: share relative to the hottest instruction
        SourceHighlightRole, // bool: on the source line chosen in the Source dock
    };

    explicit ListingModel(QObject* parent = nullptr);

    // New rows (a model reset): another kernel, variant, order or control bits.
    void setListing(ListingData data, ListingStalls stalls);
    // Samples arrived or went without a schedule change: only the samples column changes.
    void setStalls(ListingStalls stalls);
    const ListingData& listing() const { return m_data; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // Row ↔ instruction lookups (O(1)): rows are -1 when there is none, the others nullopt (a separator
    // row has neither position nor instruction).
    int rowOfOriginal(InstrId original) const;
    std::optional<Position> positionOfOriginal(InstrId original) const;
    int rowOfPosition(Position position) const;
    std::optional<Position> positionOfRow(int row) const;
    std::optional<InstrId> originalOfRow(int row) const;
    // Row of the instruction at byte address `offset` in the variant's order.
    int rowOfAddress(uint64_t offset) const;
    // Static issue cycle of each position in the current variant (relative to its block).
    const IndexVector<Position, int>& variantCycles() const { return m_cycles; }

    static QString columnToolTip(int column);
    // What the '*' of the reuse notation means (reuse flags kept under Y0; core/sass/instruction_text.h).
    static QString unprintedReuseNote();
    // A column with nothing to show in this kernel: no predicated instruction (Pred), no stall samples
    // for the current variant (Samples). The view narrows such columns so the operands get the room.
    bool isColumnEmpty(int column) const;
    // The current variant's samples mapped onto the kernel, and the original's (for comparisons).
    const std::optional<KernelStalls>& stalls() const { return m_stalls.variant; }
    const std::optional<KernelStalls>& originalStalls() const { return m_stalls.original; }
    // Where each original instruction came from (listing_model_source.cpp); null: no map. The
    // highlighted instructions (original indices) are those of the source line chosen in the Source dock.
    void setSourceMap(std::shared_ptr<const SourceMap> map);
    const SourceMap* sourceMap() const { return m_source.get(); }
    bool hasSourceLines() const; // some instruction has a source line
    void setHighlightedInstructions(const std::vector<InstrId>& originals);
    bool isHighlighted(InstrId original) const;

    // One sentence per reason for an instruction's samples, compared with the original's when both
    // have samples ("memory wait 55% …; original: 3.7% of samples").
    QString stallsText(InstrId original) const;

private:
    void rebuildRows();
    // The Source column's cells and SourceHighlightRole; invalid for anything else.
    QVariant sourceData(InstrId original, int column, int role) const;

    // One instruction row: its position in the variant, its original index, what it is and its
    // control bits in this variant.
    struct InstructionRow
    {
        Position position;
        InstrId original;
        const Instruction& instruction;
        const Control& control;
    };
    InstructionRow instructionRow(Position position) const;
    // data() by row kind, then by role and column family: a block separator's cells and roles; an
    // instruction's custom roles, its displayed cells and its tooltips.
    QVariant separatorData(const BasicBlock& block, int column, int role) const;
    QString separatorText(const BasicBlock& block) const;
    QString separatorToolTip(const BasicBlock& block) const;
    QVariant rowData(const InstructionRow& row, int role) const;
    QVariant displayData(const InstructionRow& row, int column) const;
    QVariant toolTipData(const InstructionRow& row, int column) const;
    int cycleOf(Position position) const;  // static issue cycle; 0 past the schedule
    int liveGprOf(InstrId original) const; // live 32-bit registers; 0 without facts

    ListingData m_data;
    ListingStalls m_stalls;
    std::vector<int32_t> m_rows;                    // >= 0: position; < 0: separator of block -(v + 1)
    IndexVector<Position, int32_t> m_rowOfPosition; // position → row
    IndexVector<Position, int> m_cycles;
    IndexVector<InstrId, Position> m_positionOfOriginal;
    double m_maxShare = 0.0; // of the variant's samples
    std::shared_ptr<const SourceMap> m_source;
    IndexVector<InstrId, uint8_t> m_highlight; // 1: on the chosen source line
};

} // namespace sassx
