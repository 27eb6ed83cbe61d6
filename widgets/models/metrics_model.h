#pragma once
// Table of figures for the variants being compared: one row per figure (speedup, time, then the
// Nsight-named metrics), one column per variant. Every cell carries its source (SourceRole) and the
// column header names it, so an estimate can never pass for a measurement. The model keeps copies of the
// records it compares, taken from the variant tree whenever one of them changes.
#include "core/common/enum_names.h"
#include "core/session/variant_record.h"

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

namespace sassx {
class VariantTree;

// What a row shows: the variant's speed-up, its time per launch (both from its timing), or a figure an
// evaluator returned by name (an Nsight Compute metric, a CUPTI counter, the estimate's figures).
enum class MetricRow
{
    Speedup,
    Time,
    Named,
};

// The rows' names as MetricNameRole gives them (a named row gives its own).
inline constexpr std::array<EnumName<MetricRow>, 2> kMetricRowNames{{
    {MetricRow::Speedup, "speedup"},
    {MetricRow::Time, "time"},
}};

// How a metric's value reads (resources/metrics/*.json, "kind"): percentages share the chart's axis.
enum class MetricScale
{
    Percent,
    Bytes,
    Time,
    Count,
};

inline constexpr std::array<EnumName<MetricScale>, 4> kMetricScaleNames{{
    {MetricScale::Percent, "percent"},
    {MetricScale::Bytes, "bytes"},
    {MetricScale::Time, "time"},
    {MetricScale::Count, "count"},
}};

struct MetricInfo
{
    QString name;  // Nsight Compute name, or kMetricRowNames' for the timing rows
    QString label; // what the GUI shows
    QString unit;
    bool percent = false;
    MetricRow row = MetricRow::Named;
};

class MetricsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Roles
    {
        ValueRole = Qt::UserRole + 1, // double, invalid when the variant has no such figure
        SourceRole,                   // QString: "estimate", "measured on …", "cupti on …", "ncu on …"
        SourceKindRole,               // int: eval::FigureKind of the figure; invalid when unknown
        MetricNameRole,               // QString: the metric's Nsight name
        MetricRowRole,                // int: the row's MetricRow
        IsPercentRole,                // bool: plotted as a throughput/hit-rate bar
        VariantIdRole,                // int (header data, horizontal)
    };

    explicit MetricsModel(VariantTree* variants, QObject* parent = nullptr);

    void setVariants(const std::vector<int>& ids);
    const std::vector<int>& variants() const { return m_variants; }
    const std::vector<MetricInfo>& metrics() const { return m_metrics; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Known metrics from resources/metrics/nsight.json (labels and units), in file order.
    static std::vector<MetricInfo> knownMetrics();
    // Figures never shown (resources/metrics/estimate.json, "hidden"): the estimate's nominal time.
    static std::vector<QString> hiddenMetrics();

private:
    void rebuild();
    bool value(int row, int column, double* out, eval::FigureSource* source) const;

    VariantTree* m_tree;
    std::vector<int> m_variants;
    std::vector<std::optional<VariantRecord>> m_records; // of m_variants, as last rebuilt
    std::vector<MetricInfo> m_metrics;
};

} // namespace sassx
