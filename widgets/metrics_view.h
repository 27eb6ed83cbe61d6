#pragma once
// Nsight-style comparison of variants: throughput and hit-rate percentages as grouped bars (one group
// per metric, one bar per variant) above the full table. Every legend entry and column header names
// the figures' source (measured on a GPU, or estimate).
#include <QWidget>

#include <vector>

class QCustomPlot;
class QLabel;
class QTableView;

namespace sassx {
class MetricsModel;
class VariantTree;

class MetricsView : public QWidget
{
    Q_OBJECT
public:
    explicit MetricsView(VariantTree* variants, QWidget* parent = nullptr);

    void setVariants(const std::vector<int>& ids);
    MetricsModel* model() const { return m_model; }
    QCustomPlot* plot() const { return m_plot; }
    QTableView* table() const { return m_table; }
    // Bars currently plotted (tests): one entry per variant.
    int barSeriesCount() const;
    // The line above the chart: why there are no hardware metrics (estimate only, or not collected),
    // or how to fill the view; hidden when hardware metrics are shown.
    QLabel* note() const { return m_note; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void replot();
    // Legend entries per row: as many as the chart's width holds, the rest wrap to further rows.
    void fitLegend();
    QString noteText() const;
    void fitLabel(); // the y label that fits the chart's height (plot_labels.h)

    VariantTree* m_variants;
    MetricsModel* m_model;
    QCustomPlot* m_plot;
    QTableView* m_table;
    QLabel* m_note;
    bool m_speedupAxis = false;
};

} // namespace sassx
