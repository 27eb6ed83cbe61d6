#include "widgets/metrics_view.h"

#include "widgets/models/metrics_model.h"
#include "widgets/plot_labels.h"

#include <qcustomplot.h>

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace sassx {

MetricsView::MetricsView(VariantTree* variants, QWidget* parent)
    : QWidget(parent), m_variants(variants), m_model(new MetricsModel(variants, this))
{
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("metricsNote"));
    m_note->setWordWrap(true);
    m_note->setContentsMargins(4, 2, 4, 2);
    m_plot = new QCustomPlot(this);
    // An explicit minimum: QCustomPlot's own hint is its legend's one-row width, which with several
    // variants would widen the dock (and squeeze the listing) instead of wrapping the legend.
    m_plot->setMinimumSize(160, 110);
    // The legend is a row above the axis rect, so it never covers a bar.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->yAxis->setLabel(tr("% of peak / hit rate"));
    m_plot->yAxis->setRange(0, 100);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // However short the dock (the Search dock open below), the table keeps three rows in view; the
    // chart gives way first.
    const int row =
        std::max(m_table->fontMetrics().height() + 8, m_table->verticalHeader()->defaultSectionSize());
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height() + 3 * row +
                              m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent) +
                              2 * m_table->frameWidth() + 4);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plot);
    split->addWidget(m_table);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_note);
    layout->addWidget(split);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MetricsView::replot);
    connect(m_plot, &QCustomPlot::afterLayout, this, &MetricsView::fitLabel);
    replot();
}

void MetricsView::setVariants(const std::vector<int>& ids)
{
    m_model->setVariants(ids);
}

int MetricsView::barSeriesCount() const
{
    int n = 0;
    for (int i = 0; i < m_plot->plottableCount(); ++i)
        if (qobject_cast<QCPBars*>(m_plot->plottable(i))) ++n;
    return n;
}

void MetricsView::fitLabel()
{
    if (m_speedupAxis)
        fitYAxisLabel(m_plot, tr("Speed-up (×, > 1 = faster)"), tr("Speed-up"));
    else
        fitYAxisLabel(m_plot, tr("% of peak / hit rate"), tr("%"));
}

QString MetricsView::noteText() const
{
    // Hardware counters come only from a GPU; say so where they would be, instead of an empty chart.
    if (m_model->columnCount() == 0)
        return tr("Select variants and press Compare (or measure one) to see their figures here.");
    bool measured = false, hardware = false;
    for (int c = 0; c < m_model->columnCount(); ++c)
        for (int r = 0; r < m_model->rowCount(); ++r) {
            const QModelIndex i = m_model->index(r, c);
            if (!i.data(MetricsModel::ValueRole).isValid()) continue;
            const QVariant kind = i.data(MetricsModel::SourceKindRole);
            const bool timed = kind.isValid() && kind.toInt() == int(eval::FigureKind::Measured);
            const auto row = MetricRow(i.data(MetricsModel::MetricRowRole).toInt());
            measured = measured || timed;
            hardware = hardware || (timed && row == MetricRow::Named);
        }
    if (hardware) return {};
    if (measured)
        return tr("Hardware metrics (throughput, hit rates) were not collected: measure with metrics "
                  "(ncu or CUPTI on the GPU) to see them.");
    return tr("Hardware metrics (throughput, hit rates) need a GPU: these figures are the estimate's. "
              "Measure on a machine with a GPU (or a remote worker) for Nsight-like metrics.");
}

void MetricsView::replot()
{
    m_note->setText(noteText());
    m_note->setVisible(!m_note->text().isEmpty());
    m_plot->clearPlottables();
    // Percentages share an axis; other figures (time, bytes, cycles) stay in the table. Without any
    // (an estimate, or timing only) the chart shows the speed-ups instead of staying empty.
    std::vector<int> rows;
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->metrics()[size_t(r)].percent) rows.push_back(r);
    const bool speedups = rows.empty();
    if (speedups) rows.push_back(0); // MetricsModel's first row is the speed-up
    m_speedupAxis = speedups;
    fitLabel();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (size_t k = 0; k < rows.size(); ++k)
        ticker->addTick(double(k + 1), m_model->metrics()[size_t(rows[k])].label);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setTickLabelRotation(rows.size() > 4 ? 25 : 0);
    m_plot->xAxis->setRange(0.4, double(rows.size()) + 0.6);
    auto* group = new QCPBarsGroup(m_plot);
    static const QColor palette[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                                     QColor(0x59, 0xa1, 0x4f), QColor(0xe1, 0x57, 0x59),
                                     QColor(0x76, 0xb7, 0xb2), QColor(0xb0, 0x7a, 0xa1)};
    const int columns = m_model->columnCount();
    const double width = 0.8 / std::max(1, columns);
    for (int c = 0; c < columns; ++c) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        // Legend: variant name and source on one line ("v1 (estimate)").
        bars->setName(
            m_model->headerData(c, Qt::Horizontal).toString().replace(QLatin1Char('\n'), QLatin1Char(' ')));
        const QColor color = palette[c % 6];
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(130)));
        bars->setWidth(width);
        bars->setBarsGroup(group);
        for (size_t k = 0; k < rows.size(); ++k) {
            const QVariant v = m_model->index(rows[k], c).data(MetricsModel::ValueRole);
            if (v.isValid()) bars->addData(double(k + 1), v.toDouble());
        }
    }
    if (speedups) {
        double top = 1.0;
        for (int c = 0; c < columns; ++c)
            top = std::max(top, m_model->index(0, c).data(MetricsModel::ValueRole).toDouble());
        m_plot->yAxis->setRange(0, top * 1.1);
    } else {
        m_plot->yAxis->setRange(0, 100);
    }
    fitLegend();
    m_plot->replot();
}

void MetricsView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitLegend();
}

void MetricsView::fitLegend()
{
    QCPLegend* legend = m_plot->legend;
    int widest = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i))
            widest = std::max(widest, item->minimumOuterSizeHint().width());
    const int room = m_plot->width() - legend->margins().left() - legend->margins().right();
    const int perRow =
        widest > 0 ? std::max(1, (room + legend->columnSpacing()) / (widest + legend->columnSpacing())) : 1;
    if (legend->wrap() == perRow) return;
    legend->setWrap(perRow);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // re-flows the entries into the new rows
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace sassx
