#include "widgets/models/variants_model.h"

#include "core/session/session.h"

#include <QFont>

namespace sassx {

VariantsModel::VariantsModel(Session* session, QObject* parent)
    : QAbstractItemModel(parent), m_session(session)
{
    connect(session, &Session::variantsChanged, this, &VariantsModel::rebuild);
    connect(session, &Session::variantChanged, this, &VariantsModel::variantChanged);
    connect(session, &Session::currentVariantChanged, this, [this] {
        // The current mark may be anywhere in the tree: refresh every row.
        for (const auto& entry : m_parent)
            variantChanged(entry.first);
    });
    auto measuring = [this](int id, bool on) {
        m_measuring[id] = on;
        variantChanged(id);
    };
    connect(session, &Session::measureStarted, this, [measuring](int id) { measuring(id, true); });
    connect(session, &Session::measureFinished, this, [measuring](int id) { measuring(id, false); });
    connect(session, &Session::measureFailed, this,
            [measuring](int id, const QString&) { measuring(id, false); });
    rebuild();
}

void VariantsModel::rebuild()
{
    beginResetModel();
    m_children.clear();
    m_parent.clear();
    for (const VariantRecord& v : m_session->variants()) {
        const int parent = m_session->variant(v.parent) ? v.parent : -1;
        m_children[parent].push_back(v.id);
        m_parent[v.id] = parent;
    }
    endResetModel();
}

void VariantsModel::variantChanged(int id)
{
    const QModelIndex first = indexOfVariant(id, 0);
    if (first.isValid()) Q_EMIT dataChanged(first, indexOfVariant(id, ColumnCount - 1));
}

QModelIndex VariantsModel::indexOfVariant(int id, int column) const
{
    auto p = m_parent.find(id);
    if (p == m_parent.end()) return {};
    const auto& siblings = m_children.at(p->second);
    for (size_t row = 0; row < siblings.size(); ++row)
        if (siblings[row] == id) return createIndex(int(row), column, quintptr(id));
    return {};
}

int VariantsModel::variantIdOf(const QModelIndex& index) const
{
    return index.isValid() ? int(index.internalId()) : -1;
}

const VariantRecord* VariantsModel::record(const QModelIndex& index) const
{
    return index.isValid() ? m_session->variant(int(index.internalId())) : nullptr;
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
            return tr("95% bootstrap interval of the speedup (an estimate collapses it to a point).");
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
    m_session->renameVariant(v->id, name);
    return true;
}

QVariant VariantsModel::data(const QModelIndex& index, int role) const
{
    const VariantRecord* v = record(index);
    if (!v) return {};
    const auto* timing = v->figures && v->figures->result.timing ? &*v->figures->result.timing : nullptr;
    const bool measuring = m_measuring.count(v->id) && m_measuring.at(v->id);
    switch (role) {
    case VariantIdRole:
        return v->id;
    case IsCurrentRole:
        return v->id == m_session->currentVariantId();
    case HasFiguresRole:
        return v->figures.has_value();
    case SpeedupRole:
        return timing && timing->ratio.median > 0 ? QVariant(1.0 / timing->ratio.median) : QVariant();
    case SourceLabelRole:
        return v->figures ? QString::fromStdString(v->figures->sourceLabel()) : QString();
    case MeasuringRole:
        return measuring;
    case Qt::FontRole:
        if (v->id == m_session->currentVariantId() && index.column() == NameColumn) {
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
        if (v->figures)
            return tr("%1, %2").arg(QString::fromStdString(v->figures->sourceLabel()),
                                    QString::fromStdString(v->figures->when));
        return measuring ? tr("Being evaluated…") : tr("Not measured yet");
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(v->name);
        case EditsColumn:
            return int(v->edits.size());
        case SpeedupColumn:
            if (measuring) return tr("measuring…");
            if (!timing) return v->figures && !v->figures->result.ok() ? tr("failed") : QStringLiteral("—");
            return QStringLiteral("%1×").arg(1.0 / timing->ratio.median, 0, 'f', 3);
        case IntervalColumn:
            if (!timing) return {};
            return QStringLiteral("[%1, %2]")
                .arg(1.0 / timing->ratio.high, 0, 'f', 3)
                .arg(1.0 / timing->ratio.low, 0, 'f', 3);
        case CorrectColumn:
            if (!v->figures) return {};
            if (v->figures->result.source.kind == "estimate" && v->figures->result.ok()) return tr("not run");
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
