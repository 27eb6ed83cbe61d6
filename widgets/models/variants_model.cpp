#include "widgets/models/variants_model.h"

#include "core/session/measure_queue.h"
#include "core/session/variant_record.h"
#include "core/session/variant_tree.h"

#include <QApplication>
#include <QFont>
#include <QStyle>

#include <algorithm>

namespace sassx {

VariantsModel::VariantsModel(VariantTree* variants, MeasureQueue* measure, QObject* parent)
    : QAbstractItemModel(parent), m_variants(variants)
{
    connect(variants, &VariantTree::variantsChanged, this, &VariantsModel::rebuild);
    connect(variants, &VariantTree::variantAdded, this, &VariantsModel::variantAdded);
    connect(variants, &VariantTree::variantReparented, this,
            [this](int id, int /*oldParent: the model knows where the row is*/) { variantReparented(id); });
    // The row goes while the model still holds the record (views may ask for its data meanwhile);
    // variantRemoved only catches a removal that was not announced.
    connect(variants, &VariantTree::variantAboutToBeRemoved, this, &VariantsModel::variantAboutToBeRemoved);
    connect(variants, &VariantTree::variantRemoved, this, &VariantsModel::variantAboutToBeRemoved);
    connect(variants, &VariantTree::variantChanged, this, [this](int id) {
        if (const VariantRecord* v = m_variants->variant(id); v && m_records.count(id)) m_records[id] = *v;
        variantChanged(id);
    });
    connect(variants, &VariantTree::currentVariantChanged, this, &VariantsModel::currentVariantChanged);
    auto measuring = [this](int id, bool on) {
        m_measuring[id] = on;
        variantChanged(id);
    };
    connect(measure, &MeasureQueue::measureStarted, this, [measuring](int id) { measuring(id, true); });
    connect(measure, &MeasureQueue::measureFinished, this, [measuring](int id) { measuring(id, false); });
    connect(measure, &MeasureQueue::measureFailed, this,
            [measuring](int id, const QString&) { measuring(id, false); });
    rebuild();
}

void VariantsModel::rebuild()
{
    beginResetModel();
    m_children.clear();
    m_parent.clear();
    m_records.clear();
    const std::vector<VariantRecord>& variants = m_variants->variants();
    m_records.reserve(variants.size());
    for (const VariantRecord& v : variants) {
        m_records[v.id] = v;
        m_parent[v.id] = m_variants->variant(v.parent) ? v.parent : -1;
    }
    // A cycle of parents (only a hand-made restoreVariant can make one) would leave its members
    // unreachable from the root: the member whose parent closes the loop hangs at the root instead.
    std::unordered_map<int, int> state; // 1: on the walk in progress, 2: known to reach the root
    for (const VariantRecord& v : variants) {
        std::vector<int> walk;
        int id = v.id;
        while (id >= 0 && state[id] == 0) {
            state[id] = 1;
            walk.push_back(id);
            id = m_parent[id];
        }
        if (id >= 0 && state[id] == 1) m_parent[walk.back()] = -1;
        for (int w : walk)
            state[w] = 2;
    }
    for (const VariantRecord& v : variants) // ascending ids: every child list comes out sorted
        m_children[m_parent[v.id]].push_back(v.id);
    m_current = m_variants->currentVariantId();
    endResetModel();
}

int VariantsModel::treeParentOf(int id) const
{
    auto v = m_records.find(id);
    return v != m_records.end() && v->second.parent >= 0 && m_parent.count(v->second.parent)
               ? v->second.parent
               : -1;
}

int VariantsModel::rowOf(int id, int parent) const
{
    auto it = m_children.find(parent);
    if (it == m_children.end()) return -1;
    const std::vector<int>& siblings = it->second;
    auto at = std::lower_bound(siblings.begin(), siblings.end(), id);
    return at != siblings.end() && *at == id ? int(at - siblings.begin()) : -1;
}

bool VariantsModel::isInSubtree(int id, int root) const
{
    for (int at = id; at >= 0;) {
        if (at == root) return true;
        auto p = m_parent.find(at);
        at = p == m_parent.end() ? -1 : p->second;
    }
    return false;
}

bool VariantsModel::moveTo(int id, int newParent)
{
    if (isInSubtree(newParent, id)) return false;
    const int oldParent = m_parent.at(id);
    // References into an unordered_map stay valid when it grows.
    std::vector<int>& from = m_children[oldParent];
    std::vector<int>& to = m_children[newParent];
    const int fromRow = rowOf(id, oldParent);
    const int toRow = int(std::lower_bound(to.begin(), to.end(), id) - to.begin());
    if (fromRow < 0 ||
        !beginMoveRows(indexOfVariant(oldParent), fromRow, fromRow, indexOfVariant(newParent), toRow))
        return false;
    from.erase(from.begin() + fromRow);
    to.insert(to.begin() + toRow, id);
    m_parent[id] = newParent;
    endMoveRows();
    return true;
}

void VariantsModel::variantAdded(int id)
{
    const VariantRecord* added = m_variants->variant(id);
    if (!added) return;
    // Out of step with the session (its list was replaced without variantsChanged, or an id came
    // twice): a reset is the only consistent answer. The size test is O(1) and catches both.
    if (m_parent.count(id) || m_parent.size() + 1 != m_variants->variants().size()) {
        rebuild();
        return;
    }
    m_records[id] = *added;
    const int parent = treeParentOf(id);
    std::vector<int>& siblings = m_children[parent];
    const int row = int(std::lower_bound(siblings.begin(), siblings.end(), id) - siblings.begin());
    beginInsertRows(indexOfVariant(parent), row, row);
    siblings.insert(siblings.begin() + row, id);
    m_parent[id] = parent;
    endInsertRows();
    // Variants restored before their parent hung at the root until now; rebuild() would put them
    // under it, so the rows move there. The root holds the original and such orphans only.
    const std::vector<int> roots = m_children[-1];
    for (int orphan : roots) {
        auto o = orphan == id ? m_records.end() : m_records.find(orphan);
        if (o != m_records.end() && o->second.parent == id && !moveTo(orphan, id)) {
            rebuild();
            return;
        }
    }
}

void VariantsModel::variantReparented(int id)
{
    auto at = m_parent.find(id);
    const VariantRecord* v = m_variants->variant(id);
    if (at == m_parent.end() || !v) {
        rebuild();
        return;
    }
    m_records[id] = *v;
    const int parent = treeParentOf(id);
    // Under one of its own descendants (a cycle): rebuild() breaks it deterministically.
    if (parent != at->second && !moveTo(id, parent)) rebuild();
}

void VariantsModel::variantAboutToBeRemoved(int id)
{
    auto at = m_parent.find(id);
    if (at == m_parent.end()) return; // gone already (variantRemoved after variantAboutToBeRemoved)
    const int parent = at->second;
    // The session has moved the children up already (variantReparented); any still here move now, so
    // removing the row never takes a subtree of live variants with it.
    if (auto c = m_children.find(id); c != m_children.end()) {
        const std::vector<int> left = c->second;
        for (int child : left)
            moveTo(child, parent); // cannot fail: `parent` is above `id`, not below `child`
    }
    const int row = rowOf(id, parent);
    beginRemoveRows(indexOfVariant(parent), row, row);
    std::vector<int>& siblings = m_children[parent];
    siblings.erase(siblings.begin() + row);
    m_parent.erase(id);
    m_children.erase(id);
    m_measuring.erase(id);
    endRemoveRows();
    m_records.erase(id);
}

void VariantsModel::variantChanged(int id)
{
    const QModelIndex first = indexOfVariant(id, 0);
    if (first.isValid()) Q_EMIT dataChanged(first, indexOfVariant(id, ColumnCount - 1));
}

void VariantsModel::currentVariantChanged(int id)
{
    // Only the old and the new current rows change (bold name, IsCurrentRole).
    const int old = m_current;
    m_current = id;
    if (old != id) variantChanged(old);
    variantChanged(id);
}

QModelIndex VariantsModel::indexOfVariant(int id, int column) const
{
    auto p = m_parent.find(id);
    if (p == m_parent.end() || column < 0 || column >= ColumnCount) return {};
    const int row = rowOf(id, p->second);
    return row < 0 ? QModelIndex() : createIndex(row, column, quintptr(id));
}

int VariantsModel::variantIdOf(const QModelIndex& index) const
{
    return index.isValid() ? int(index.internalId()) : -1;
}

const VariantRecord* VariantsModel::record(const QModelIndex& index) const
{
    if (!index.isValid()) return nullptr;
    auto v = m_records.find(int(index.internalId()));
    return v == m_records.end() ? nullptr : &v->second;
}

QModelIndex VariantsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount) return {};
    const int parentId = parent.isValid() ? int(parent.internalId()) : -1;
    auto it = m_children.find(parentId);
    if (it == m_children.end() || row >= int(it->second.size())) return {};
    return createIndex(row, column, quintptr(it->second[size_t(row)]));
}

QModelIndex VariantsModel::parent(const QModelIndex& child) const
{
    if (!child.isValid()) return {};
    auto p = m_parent.find(int(child.internalId()));
    if (p == m_parent.end() || p->second < 0) return {};
    return indexOfVariant(p->second, 0);
}

int VariantsModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0) return 0;
    const int id = parent.isValid() ? int(parent.internalId()) : -1;
    auto it = m_children.find(id);
    return it == m_children.end() ? 0 : int(it->second.size());
}

int VariantsModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant VariantsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case SpeedupColumn:
            return tr("Baseline time / variant time (median of interleaved rounds); > 1 is faster.");
        case IntervalColumn:
            return tr("95% bootstrap interval of the speed-up; none for an estimate (the model gives one "
                      "number, not a measurement).");
        case SourceColumn:
            return tr("Where the figures come from: measured on a GPU, or estimated by the schedule model.");
        }
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn:
        return tr("Variant");
    case EditsColumn:
        return tr("Edits");
    case SpeedupColumn:
        return tr("Speedup");
    case IntervalColumn:
        return tr("Interval");
    case CorrectColumn:
        return tr("Correct");
    case SourceColumn:
        return tr("Source");
    }
    return {};
}

Qt::ItemFlags VariantsModel::flags(const QModelIndex& index) const
{
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    const VariantRecord* v = record(index);
    if (index.column() == NameColumn && v && !v->isOriginal()) f |= Qt::ItemIsEditable;
    return f;
}

bool VariantsModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    const VariantRecord* v = record(index);
    if (!v || role != Qt::EditRole || index.column() != NameColumn || v->isOriginal()) return false;
    const QString name = value.toString().trimmed();
    if (name.isEmpty()) return false;
    m_variants->renameVariant(v->id, name);
    return true;
}

QString VariantsModel::importNote(const VariantImport& imported, bool withReasons)
{
    const QString from = tr("Imported from %1").arg(QString::fromStdString(imported.path));
    if (imported.checkedLegal()) return from + tr("; the checker accepts every difference.");
    QString note = from + tr("; not checked legal: %n refusal(s) by the checker.", nullptr,
                             int(imported.refusals.size()));
    if (withReasons)
        for (const std::string& line : imported.refusals)
            note += QLatin1Char('\n') + QString::fromStdString(line);
    return note;
}

QString VariantsModel::uncheckedNote(const VariantRecord* v)
{
    if (!v || !v->imported || v->imported->checkedLegal()) return {};
    return tr("not checked legal: %n refusal(s) by the checker", nullptr, int(v->imported->refusals.size()));
}

QVariant VariantsModel::data(const QModelIndex& index, int role) const
{
    const VariantRecord* v = record(index);
    if (!v) return {};
    const auto* timing = v->figures && v->figures->result.timing ? &*v->figures->result.timing : nullptr;
    const std::optional<eval::Speedup> speedup = v->figures ? v->figures->speedup() : std::nullopt;
    auto m = m_measuring.find(v->id);
    const bool measuring = m != m_measuring.end() && m->second;
    switch (role) {
    case VariantIdRole:
        return v->id;
    case IsCurrentRole:
        return v->id == m_current;
    case HasFiguresRole:
        return v->figures.has_value();
    case SpeedupRole:
        return speedup ? QVariant(speedup->value) : QVariant();
    case SourceLabelRole:
        return v->figures ? QString::fromStdString(v->figures->sourceLabel()) : QString();
    case MeasuringRole:
        return measuring;
    case CheckerRefusalsRole: {
        QStringList lines;
        if (v->imported)
            for (const std::string& line : v->imported->refusals)
                lines << QString::fromStdString(line);
        return lines;
    }
    case Qt::DecorationRole:
        // The mark of an imported schedule the checker refuses: its figures are those of an unchecked
        // schedule.
        if (index.column() == NameColumn && v->imported && !v->imported->checkedLegal())
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::FontRole:
        if (v->id == m_current && index.column() == NameColumn) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::EditRole:
        return index.column() == NameColumn ? QVariant(QString::fromStdString(v->name)) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == EditsColumn) {
            QStringList lines;
            for (const Edit& e : v->edits)
                lines << QString::fromStdString(e.describe());
            return lines.isEmpty() ? tr("The kernel as ptxas scheduled it.") : lines.join(QLatin1Char('\n'));
        }
        {
            // The name column is narrow by default: its tooltip starts with the whole name.
            QString name = index.column() == NameColumn ? QString::fromStdString(v->name) + QLatin1Char('\n')
                                                        : QString();
            if (v->imported)
                name += importNote(*v->imported, index.column() == NameColumn) + QLatin1Char('\n');
            if (v->figures)
                return name + tr("%1, %2").arg(QString::fromStdString(v->figures->sourceLabel()),
                                               QString::fromStdString(v->figures->when));
            return name + (measuring ? tr("Being evaluated…") : tr("Not measured yet"));
        }
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(v->name);
        case EditsColumn:
            return int(v->edits.size());
        case SpeedupColumn:
            if (measuring) return tr("measuring…");
            if (!timing) return v->figures && !v->figures->result.ok() ? tr("failed") : QStringLiteral("—");
            // An estimate says so beside its number: the Source column may be cut off.
            return speedup ? QString::fromStdString(speedup->text(3)) : QStringLiteral("—");
        case IntervalColumn:
            if (!timing) return {};
            return speedup && speedup->interval ? QString::fromStdString(speedup->intervalText(3))
                                                : QStringLiteral("—");
        case CorrectColumn:
            if (!v->figures) return {};
            if (v->figures->result.outputCheck == eval::OutputCheck::NotRun && v->figures->result.ok())
                return tr("not run");
            return v->figures->result.ok() ? tr("yes")
                                           : QString::fromStdString(v->figures->result.failureKind.empty()
                                                                        ? std::string("no")
                                                                        : v->figures->result.failureKind);
        case SourceColumn:
            return v->figures ? QString::fromStdString(v->figures->sourceLabel()) : QString();
        }
    }
    return {};
}

} // namespace sassx
