#include "widgets/models/listing_model.h"

#include <algorithm>
#include <map>

#include "core/session/annotation_json.h"
#include "core/session/workspace.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QFontDatabase>

namespace sassx {

namespace {

// Control fields in the listing's one notation (core/sass/control_text.h), so the table, the diff view
// and the exported diffs read alike.
QString fieldText(const std::string& token)
{
    return QString::fromStdString(token);
}

// Tooltip words: "0, 3"; "a, c".
QString waitText(uint8_t mask)
{
    QStringList sbs;
    for (int k = 0; k < 6; ++k)
        if ((mask >> k) & 1) sbs << QString::number(k);
    return sbs.join(QStringLiteral(", "));
}

QString reuseText(uint8_t mask)
{
    static const char* slotNames[] = {"a", "b", "c", "d"};
    QStringList s;
    for (int k = 0; k < 4; ++k)
        if ((mask >> k) & 1) s << QLatin1String(slotNames[k]);
    return s.join(QStringLiteral(", "));
}

QString hexAddress(uint64_t offset)
{
    return QStringLiteral("%1").arg(offset, 4, 16, QLatin1Char('0'));
}

} // namespace

ListingModel::ListingModel(QObject* parent) : QAbstractTableModel(parent) {}

void ListingModel::setStalls(ListingStalls stalls)
{
    m_stalls = std::move(stalls);
    m_maxShare = 0.0;
    if (const auto& v = m_stalls.variant)
        for (InstrId i : v->byOriginal.indices())
            m_maxShare = std::max(m_maxShare, v->share(i));
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, SamplesColumn), index(int(m_rows.size()) - 1, SamplesColumn));
    Q_EMIT headerDataChanged(Qt::Horizontal, SamplesColumn, SamplesColumn); // titled once it has samples
}

void ListingModel::setListing(ListingData data, ListingStalls stalls)
{
    beginResetModel();
    m_rows.clear(); // no dataChanged from setStalls: the rows are being replaced
    setStalls(std::move(stalls));
    m_data = std::move(data);
    rebuildRows();
    endResetModel();
}

QString ListingModel::stallsText(InstrId orig) const
{
    const auto& stalls = m_stalls.variant;
    if (!stalls || orig >= stalls->byOriginal.endIndex()) return {};
    const auto& s = stalls->byOriginal[orig];
    QString text = tr("%1% of the kernel's warp samples wait here (%2 of %3; %4 of them with nothing issued)")
                       .arg(100.0 * stalls->share(orig), 0, 'f', 2)
                       .arg(s.samples)
                       .arg(stalls->samples)
                       .arg(s.notIssued);
    for (const auto& [word, n] : s.byWord)
        text += QStringLiteral("\n  %1 %2%: %3")
                    .arg(QString::fromStdString(word))
                    .arg(s.samples ? 100.0 * double(n) / double(s.samples) : 0.0, 0, 'f', 0)
                    .arg(QString::fromStdString(eval::stallWordMeaning(word)));
    if (m_stalls.original && !m_stalls.showsOriginal)
        text +=
            QLatin1Char('\n') +
            tr("In the original: %1% of its samples.").arg(100.0 * m_stalls.original->share(orig), 0, 'f', 2);
    return text;
}

bool ListingModel::isColumnEmpty(int column) const
{
    if (column == SamplesColumn) return !m_stalls.variant;
    if (column == SourceColumn) return !hasSourceLines();
    if (column != PredicateColumn) return false;
    const auto& analysis = m_data.analysis;
    if (!analysis) return true;
    return std::none_of(analysis->listing.instructions.begin(), analysis->listing.instructions.end(),
                        [](const auto& ins) { return !ins.predicateText.empty(); });
}

void ListingModel::rebuildRows()
{
    m_rows.clear();
    m_rowOfPosition.clear();
    m_cycles.clear();
    m_positionOfOriginal.clear();
    const auto& analysis = m_data.analysis;
    const Schedule& s = m_data.schedule;
    if (analysis && s.order.size() == analysis->listing.instructions.size()) {
        const auto& blocks = analysis->cfg.blocks;
        const size_t n = s.order.size();
        m_rows.reserve(n + blocks.size());
        m_rowOfPosition.resize(n, -1);
        m_cycles.resize(n, 0);
        m_positionOfOriginal = s.positionOf();
        for (const BasicBlock& b : blocks) {
            m_rows.push_back(-(b.index + 1));
            int cycle = 0;
            for (Position p : positionsOf(b)) {
                if (p >= s.order.endIndex()) break;
                m_rowOfPosition[p] = int32_t(m_rows.size());
                m_rows.push_back(int32_t(p.value()));
                m_cycles[p] = cycle;
                const Control& c = s.control[s.order[p]];
                cycle += c.stall == 0 ? 1 : c.stall;
            }
        }
    }
}

int ListingModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ListingModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int ListingModel::rowOfOriginal(InstrId original) const
{
    const std::optional<Position> p = positionOfOriginal(original);
    return p ? rowOfPosition(*p) : -1;
}

std::optional<Position> ListingModel::positionOfOriginal(InstrId original) const
{
    if (original >= m_positionOfOriginal.endIndex()) return std::nullopt;
    return m_positionOfOriginal[original];
}

int ListingModel::rowOfPosition(Position position) const
{
    return position < m_rowOfPosition.endIndex() ? m_rowOfPosition[position] : -1;
}

std::optional<Position> ListingModel::positionOfRow(int row) const
{
    if (row < 0 || size_t(row) >= m_rows.size() || m_rows[size_t(row)] < 0) return std::nullopt;
    return Position(uint32_t(m_rows[size_t(row)]));
}

std::optional<InstrId> ListingModel::originalOfRow(int row) const
{
    const std::optional<Position> p = positionOfRow(row);
    if (!p) return std::nullopt;
    return m_data.schedule.order[*p];
}

int ListingModel::rowOfAddress(uint64_t offset) const
{
    return offset % 16 == 0 && offset / 16 <= UINT32_MAX ? rowOfPosition(Position(uint32_t(offset / 16)))
                                                         : -1;
}

QString ListingModel::unprintedReuseNote()
{
    return tr("Y0 with reuse flags (the '*' of a--* and .reuse*): the flags are in the word, but nvdisasm "
              "prints no .reuse marks under a cleared yield bit.");
}

QString ListingModel::columnToolTip(int column)
{
    switch (column) {
    case AddressColumn:
        return tr("Byte address of the instruction in this variant (block starts never move).");
    case PredicateColumn:
        return tr("Guard predicate: the instruction only takes effect in threads where it is true.");
    case InstructionColumn:
        return tr("Opcode with modifiers and operands, as nvdisasm prints them. Memory instructions are "
                  "highlighted; they can be dragged.");
    case StallColumn:
        return tr("Stall count (control bits 105-108): cycles the warp waits before issuing the next "
                  "instruction. Fixed-latency results rely on it.");
    case YieldColumn:
        return tr("Yield bit (bit 109) as encoded: a hint that the scheduler may switch to another warp.");
    case WriteSbColumn:
        return tr("Write scoreboard: set when this variable-latency instruction issues, cleared when its "
                  "result is written. Consumers wait on it.");
    case ReadSbColumn:
        return tr("Read scoreboard: cleared once this instruction has read its source registers, so they "
                  "may be overwritten.");
    case WaitColumn:
        return tr("Wait mask: scoreboards that must be clear before this instruction issues.");
    case ReuseColumn:
        return tr("Operand reuse cache flags (a, b, c slots): the register is kept for the next "
                  "instruction reading the same slot. A '*' (a--*, and .reuse* on the operand) marks flags "
                  "kept under a cleared yield bit: they are in the word, but nvdisasm prints no .reuse "
                  "there.");
    case CycleColumn:
        return tr("Static issue cycle inside the block, from the stall counts of this variant "
                  "(no memory latency: a schedule model, not a measurement).");
    case LiveColumn:
        return tr("Live 32-bit registers at this instruction, from the liveness analysis of the original "
                  "order (counted as nvdisasm -plr does).");
    case SamplesColumn:
        return tr("Warp-stall samples (measured on a GPU: CUPTI PC sampling of one launch, Variant ▸ Sample "
                  "Stalls): the share of the kernel's samples whose warp was at this instruction, the bar "
                  "split by why it waited. Empty when this variant has no samples. Not the Stall column, "
                  "which is the static stall count of the control bits.");
    case SourceColumn:
        return tr("The source line the instruction came from (file:line), from the cubin's line tables: "
                  "Triton cubins carry them, CUDA ones when built with -lineinfo. The Source dock lists "
                  "the lines.");
    }
    return {};
}

QVariant ListingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) return columnToolTip(section);
    if (role != Qt::DisplayRole) return {};
    // A column with nothing to show gives way to a sliver (ListingView::giveWayEmptyColumns): its
    // title would only be clipped there; the tooltip still names it.
    if (isColumnEmpty(section)) return QString();
    switch (section) {
    case AddressColumn:
        return tr("Address");
    case PredicateColumn:
        return tr("Pred");
    case InstructionColumn:
        return tr("Instruction");
    case StallColumn:
        return tr("Stall");
    case YieldColumn:
        return tr("Y");
    case WriteSbColumn:
        return tr("W"); // the scoreboards' own letters (W2, R-): narrow, so the control columns fit
    case ReadSbColumn:
        return tr("R");
    case WaitColumn:
        return tr("Wait");
    case ReuseColumn:
        return tr("Reuse");
    case CycleColumn:
        return tr("Cycle");
    case LiveColumn:
        return tr("Live");
    case SamplesColumn:
        return tr("Samples");
    case SourceColumn:
        return tr("Source");
    }
    return {};
}

Qt::ItemFlags ListingModel::flags(const QModelIndex& index) const
{
    if (!index.isValid()) return Qt::NoItemFlags;
    if (m_rows[size_t(index.row())] < 0) return Qt::ItemIsEnabled; // separators are labels, not instructions
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariant ListingModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()) || !m_data.analysis) return {};
    const int32_t entry = m_rows[size_t(index.row())];
    const int column = index.column();
    if (entry < 0) return separatorData(m_data.analysis->cfg.blocks[size_t(-(entry + 1))], column, role);

    const InstructionRow row = instructionRow(Position(uint32_t(entry)));
    if (QVariant source = sourceData(row.original, column, role); source.isValid()) return source;
    switch (role) {
    case Qt::DisplayRole:
        return displayData(row, column);
    case Qt::ToolTipRole:
        return toolTipData(row, column);
    case Qt::TextAlignmentRole:
        return column >= StallColumn ? int(Qt::AlignCenter) : int(Qt::AlignLeft | Qt::AlignVCenter);
    default:
        return rowData(row, role);
    }
}

ListingModel::InstructionRow ListingModel::instructionRow(Position position) const
{
    const InstrId orig = m_data.schedule.order[position];
    return {position, orig, m_data.analysis->listing.instructions[orig.value()],
            m_data.schedule.control[orig]};
}

QVariant ListingModel::separatorData(const BasicBlock& b, int column, int role) const
{
    switch (role) {
    case IsSeparatorRole:
        return true;
    case BlockRole:
        return b.index;
    case OriginalIndexRole:
    case PositionRole:
        return -1;
    case Qt::DisplayRole:
        if (column == AddressColumn) return hexAddress(uint64_t(b.first) * 16);
        if (column == InstructionColumn) return separatorText(b);
        return {};
    case Qt::ToolTipRole:
        return separatorToolTip(b);
    }
    return {};
}

QString ListingModel::separatorText(const BasicBlock& b) const
{
    const std::optional<KernelStalls>& stalls = m_stalls.variant;
    QString s = tr("block %1  %2").arg(b.index).arg(QString::fromStdString(b.label));
    if (b.isLoopHeader) s += tr("  · loop header");
    if (b.loopDepth > 0) s += tr("  · depth %1").arg(b.loopDepth);
    s += tr("  · %n instruction(s)", nullptr, int(b.size()));
    if (stalls && stalls->samples && size_t(b.index) < stalls->byBlock.size())
        s += tr("  · %1% of the stall samples")
                 .arg(100.0 * double(stalls->byBlock[size_t(b.index)]) / double(stalls->samples), 0, 'f', 1);
    return s;
}

QString ListingModel::separatorToolTip(const BasicBlock& b) const
{
    const std::optional<KernelStalls>& stalls = m_stalls.variant;
    QString tip = tr("Basic block %1 (%2): instructions never leave their block, and block starts never "
                     "move, so every branch stays valid.")
                      .arg(b.index)
                      .arg(QString::fromStdString(b.label));
    if (!stalls || !stalls->samples || size_t(b.index) >= stalls->byBlock.size() ||
        !stalls->byBlock[size_t(b.index)])
        return tip;
    // The block's samples by reason (a per-block summary).
    std::map<std::string, uint64_t> words;
    const auto& order = m_data.schedule.order;
    for (Position p : positionsOf(b)) {
        if (p >= order.endIndex()) break;
        for (const auto& [word, n] : stalls->byOriginal[order[p]].byWord)
            words[word] += n;
    }
    std::vector<std::pair<std::string, uint64_t>> sorted(words.begin(), words.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    const double total = double(stalls->byBlock[size_t(b.index)]);
    tip += QLatin1Char('\n') +
           tr("%1% of the kernel's stall samples:").arg(100.0 * total / double(stalls->samples), 0, 'f', 1);
    for (const auto& [word, n] : sorted)
        tip += QStringLiteral("\n  %1 %2%")
                   .arg(QString::fromStdString(word))
                   .arg(100.0 * double(n) / total, 0, 'f', 1);
    return tip;
}

QVariant ListingModel::rowData(const InstructionRow& row, int role) const
{
    const std::optional<KernelStalls>& stalls = m_stalls.variant;
    const InstrId orig = row.original;
    const Instruction& ins = row.instruction;
    switch (role) {
    case IsSeparatorRole:
        return false;
    case OriginalIndexRole:
        return int(orig.value());
    case PositionRole:
        return int(row.position.value());
    case BlockRole:
        return m_data.analysis->cfg.blockOf[orig.value()];
    case InstrClassRole:
        return int(ins.cls);
    case IsMemoryRole:
        return ins.isMemory();
    case StallRole:
        return int(row.control.stall);
    case MovedRole:
        // The original order is the identity schedule: an instruction where ptxas put it has its InstrId
        // as position.
        return orig.value() != row.position.value();
    case ControlChangedRole:
        return !(row.control == ins.control);
    case OpcodeRole:
        return QString::fromStdString(ins.opcode);
    case OperandsRole:
        return QString::fromStdString(operandText(ins, row.control));
    case BranchTargetRole:
        return ins.branchTarget ? QVariant(qulonglong(*ins.branchTarget)) : QVariant();
    case SampleShareRole:
        return stalls ? QVariant(stalls->share(orig)) : QVariant();
    case SampleHeatRole:
        return stalls && m_maxShare > 0 ? QVariant(stalls->share(orig) / m_maxShare) : QVariant();
    case SampleWordsRole: {
        if (!stalls) return {};
        const auto& st = stalls->byOriginal[orig];
        QVariantList words;
        for (const auto& [word, n] : st.byWord)
            words.push_back(QVariantList{QString::fromStdString(word),
                                         st.samples ? double(n) / double(st.samples) : 0.0});
        return words;
    }
    }
    return {};
}

QVariant ListingModel::displayData(const InstructionRow& row, int column) const
{
    const std::optional<KernelStalls>& stalls = m_stalls.variant;
    const Instruction& ins = row.instruction;
    const Control& c = row.control;
    switch (column) {
    case AddressColumn:
        return hexAddress(uint64_t(row.position.value()) * 16);
    case PredicateColumn:
        return QString::fromStdString(ins.predicateText);
    case InstructionColumn: {
        // The edited word's text: `.reuse` marks follow this variant's flags (instruction_text.h).
        const std::string ops = operandText(ins, c);
        return QString::fromStdString(ins.opcode + (ops.empty() ? std::string() : " " + ops));
    }
    case StallColumn:
        return int(c.stall);
    case YieldColumn:
        return fieldText(controlFieldTexts(c).yield);
    case WriteSbColumn:
        return fieldText(controlFieldTexts(c).wbar);
    case ReadSbColumn:
        return fieldText(controlFieldTexts(c).rbar);
    case WaitColumn:
        return fieldText(controlFieldTexts(c).wait);
    case ReuseColumn:
        return fieldText(controlFieldTexts(c).reuse);
    case CycleColumn:
        return cycleOf(row.position);
    case LiveColumn:
        return liveGprOf(row.original);
    case SamplesColumn:
        if (!stalls || !stalls->byOriginal[row.original].samples) return {};
        return QStringLiteral("%1%").arg(100.0 * stalls->share(row.original), 0, 'f', 1);
    }
    return {};
}

QVariant ListingModel::toolTipData(const InstructionRow& row, int column) const
{
    const Instruction& ins = row.instruction;
    const Control& c = row.control;
    switch (column) {
    case AddressColumn:
        // The original listing is the identity schedule: an unmoved instruction's position is its InstrId.
        return row.original.value() == row.position.value()
                   ? tr("At %1, where ptxas placed it.").arg(hexAddress(ins.offset))
                   : tr("Moved: at %1 in this variant, %2 in the original.")
                         .arg(hexAddress(uint64_t(row.position.value()) * 16), hexAddress(ins.offset));
    case StallColumn:
        return tr("Stall %1: the warp waits %1 cycle(s) before issuing the next instruction.").arg(c.stall);
    case YieldColumn:
        return tr("Yield bit = %1 (as encoded).").arg(c.yield);
    case WriteSbColumn:
        return c.wbar == kNoBarrier ? tr("Sets no write scoreboard.")
                                    : tr("Sets SB%1 until its result is written; instructions that need "
                                         "the result wait on SB%1.")
                                          .arg(c.wbar);
    case ReadSbColumn:
        return c.rbar == kNoBarrier ? tr("Sets no read scoreboard.")
                                    : tr("Sets SB%1 until its source registers have been read; an "
                                         "instruction that overwrites them waits on SB%1.")
                                          .arg(c.rbar);
    case WaitColumn:
        return c.wait == 0
                   ? tr("Waits on no scoreboard.")
                   : tr("Waits until scoreboard(s) %1 are clear before issuing.").arg(waitText(c.wait));
    case ReuseColumn:
        if (c.reuse == 0) return tr("No operand reuse.");
        return tr("Keeps operand slot(s) %1 in the reuse cache for the next instruction.")
                   .arg(reuseText(c.reuse)) +
               ((c.reuse & 7) && !(c.yield & 1) ? QLatin1Char(' ') + unprintedReuseNote() : QString());
    case SamplesColumn:
        return m_stalls.variant
                   ? stallsText(row.original)
                   : tr("No stall samples for this variant: Variant ▸ Sample Stalls measures them "
                        "on a GPU (or File ▸ Import Stall Samples…).");
    case LiveColumn:
        return tr("%1 live 32-bit registers (liveness analysis of the original order).")
            .arg(liveGprOf(row.original));
    case CycleColumn:
        return tr("Issues at static cycle %1 of its block (sum of this variant's stalls; a model).")
            .arg(cycleOf(row.position));
    default: {
        const KernelAnalysis& analysis = *m_data.analysis;
        QString tip = QString::fromStdString(instructionText(ins, c));
        if ((c.reuse & 7) && !(c.yield & 1)) tip += QLatin1Char('\n') + unprintedReuseNote();
        const uint32_t i = row.original.value();
        if (i < analysis.facts.size() && analysis.facts[i].wall)
            tip += tr("\nWall: %1").arg(QString::fromStdString(analysis.facts[i].wallReason));
        if (ins.isMemory()) tip += tr("\nMemory instruction: drag it to move it; legal positions light up.");
        return tip;
    }
    }
}

int ListingModel::cycleOf(Position position) const
{
    return position < m_cycles.endIndex() ? m_cycles[position] : 0;
}

int ListingModel::liveGprOf(InstrId original) const
{
    const auto& facts = m_data.analysis->facts;
    return original.value() < facts.size() ? facts[original.value()].liveGpr : 0;
}

} // namespace sassx
