#include "widgets/models/metrics_model.h"

#include "core/common/paths.h"
#include "core/session/variant_record.h"
#include "core/session/variant_tree.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace sassx {

MetricsModel::MetricsModel(VariantTree* variants, QObject* parent)
    : QAbstractTableModel(parent), m_tree(variants)
{
    connect(variants, &VariantTree::variantChanged, this, [this](int id) {
        if (std::find(m_variants.begin(), m_variants.end(), id) != m_variants.end()) rebuild();
    });
    // Deleted variants leave the comparison.
    auto dropDeleted = [this] {
        std::vector<int> kept;
        for (int id : m_variants)
            if (m_tree->variant(id)) kept.push_back(id);
        m_variants = kept;
        rebuild();
    };
    connect(variants, &VariantTree::variantsChanged, this, dropDeleted);
    connect(variants, &VariantTree::variantRemoved, this, [this, dropDeleted](int id) {
        if (std::find(m_variants.begin(), m_variants.end(), id) != m_variants.end()) dropDeleted();
    });
    rebuild();
}

namespace {

QJsonObject resourceObject(const char* file)
{
    QFile f(QString::fromStdString((resourcesDir() / "metrics" / file).string()));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

std::vector<MetricInfo> MetricsModel::knownMetrics()
{
    // Nsight Compute's metrics, then the estimate backend's (each labelled "(estimate)").
    static const std::vector<MetricInfo> cached = [] {
        std::vector<MetricInfo> out;
        for (const char* file : {"nsight.json", "estimate.json"})
            for (const auto& m : resourceObject(file).value(QStringLiteral("metrics")).toArray()) {
                const QJsonObject o = m.toObject();
                out.push_back(
                    {o.value(QStringLiteral("name")).toString(), o.value(QStringLiteral("label")).toString(),
                     o.value(QStringLiteral("unit")).toString(),
                     parseEnum(kMetricScaleNames, o.value(QStringLiteral("kind")).toString().toStdString()) ==
                         MetricScale::Percent});
            }
        return out;
    }();
    return cached;
}

std::vector<QString> MetricsModel::hiddenMetrics()
{
    static const std::vector<QString> cached = [] {
        std::vector<QString> out;
        for (const auto& h : resourceObject("estimate.json").value(QStringLiteral("hidden")).toArray())
            out.push_back(h.toString());
        return out;
    }();
    return cached;
}

void MetricsModel::setVariants(const std::vector<int>& ids)
{
    m_variants.clear();
    for (int id : ids)
        if (m_tree->variant(id) && std::find(m_variants.begin(), m_variants.end(), id) == m_variants.end())
            m_variants.push_back(id);
    rebuild();
}

void MetricsModel::rebuild()
{
    beginResetModel();
    // The model keeps the records it shows (their figures), refreshed whenever one of them changes.
    m_records.clear();
    for (int id : m_variants)
        if (const VariantRecord* v = m_tree->variant(id))
            m_records.push_back(*v);
        else
            m_records.emplace_back();
    m_metrics.clear();
    auto rowName = [](MetricRow r) {
        const std::string_view name = enumName(kMetricRowNames, r);
        return QString::fromUtf8(name.data(), qsizetype(name.size()));
    };
    m_metrics.push_back(
        {rowName(MetricRow::Speedup), tr("Speedup"), QStringLiteral("×"), false, MetricRow::Speedup});
    m_metrics.push_back(
        {rowName(MetricRow::Time), tr("Time per launch"), QStringLiteral("µs"), false, MetricRow::Time});
    // Known metrics in their documented order, then any others an evaluator returned.
    std::vector<MetricInfo> known = knownMetrics();
    std::vector<QString> present;
    for (const auto& v : m_records)
        if (v && v->figures)
            for (const auto& m : v->figures->result.metrics)
                present.push_back(QString::fromStdString(m.name));
    for (const MetricInfo& k : known)
        if (std::find(present.begin(), present.end(), k.name) != present.end()) m_metrics.push_back(k);
    const std::vector<QString> hidden = hiddenMetrics();
    for (const QString& name : present)
        if (std::find(hidden.begin(), hidden.end(), name) == hidden.end() &&
            std::none_of(m_metrics.begin(), m_metrics.end(),
                         [&](const MetricInfo& m) { return m.name == name; }))
            m_metrics.push_back({name, name, QString(), name.contains(QLatin1String("pct"))});
    endResetModel();
}

int MetricsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_metrics.size());
}

int MetricsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_variants.size());
}

bool MetricsModel::value(int row, int column, double* out, eval::FigureSource* source) const
{
    const std::optional<VariantRecord>& v = m_records[size_t(column)];
    if (!v || !v->figures) return false;
    const auto& r = v->figures->result;
    const MetricInfo& m = m_metrics[size_t(row)];
    *source = r.source;
    if (m.row == MetricRow::Speedup) {
        const auto speedup = v->figures->speedup();
        if (!speedup) return false;
        *out = speedup->value;
        return true;
    }
    if (m.row == MetricRow::Time) {
        // An estimate is a ratio to the original: its nominal-clock time is not a time per launch.
        if (r.source.isEstimate()) return false;
        if (!r.timing || r.timing->candidateMedianUs <= 0) return false;
        *out = r.timing->candidateMedianUs;
        return true;
    }
    for (const auto& mv : r.metrics)
        if (QString::fromStdString(mv.name) == m.name) {
            *out = mv.value;
            *source = mv.source;
            return true;
        }
    return false;
}

QVariant MetricsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const MetricInfo& m = m_metrics[size_t(index.row())];
    double v = 0;
    eval::FigureSource figureSource;
    const bool has = value(index.row(), index.column(), &v, &figureSource);
    const QString source = QString::fromStdString(figureSourceLabel(figureSource));
    switch (role) {
    case ValueRole:
        return has ? QVariant(v) : QVariant();
    case SourceRole:
        return source;
    case SourceKindRole:
        return figureSource.kind ? QVariant(int(*figureSource.kind)) : QVariant();
    case MetricNameRole:
        return m.name;
    case MetricRowRole:
        return int(m.row);
    case IsPercentRole:
        return m.percent;
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return has ? tr("%1 = %2 %3 (%4)").arg(m.label).arg(v, 0, 'g', 6).arg(m.unit, source)
                   : tr("%1: no figure for this variant").arg(m.label);
    case Qt::DisplayRole:
        if (!has) return QStringLiteral("—");
        if (m.percent) return QStringLiteral("%1 %").arg(v, 0, 'f', 1);
        if (m.row == MetricRow::Speedup)
            // value() found figures with a speed-up in this column; an estimate's says "est.".
            return QString::fromStdString(m_records[size_t(index.column())]->figures->speedup()->text(3));
        return QStringLiteral("%1 %2").arg(v, 0, 'g', 5).arg(m.unit);
    }
    return {};
}

QVariant MetricsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= rowCount()) return {};
        if (role == Qt::DisplayRole) return m_metrics[size_t(section)].label;
        if (role == Qt::ToolTipRole) return m_metrics[size_t(section)].name;
        return {};
    }
    if (section < 0 || section >= columnCount()) return {};
    const std::optional<VariantRecord>& v = m_records[size_t(section)];
    if (!v) return {};
    const QString source =
        v->figures ? QString::fromStdString(v->figures->sourceLabel()) : tr("not measured");
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("%1\n(%2)").arg(QString::fromStdString(v->name), source);
    case Qt::ToolTipRole:
        return tr("Figures of %1: %2").arg(QString::fromStdString(v->name), source);
    case VariantIdRole:
        return v->id;
    }
    return {};
}

} // namespace sassx
