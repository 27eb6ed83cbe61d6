#include "widgets/metrics_view.h"

#include "widgets/models/metrics_model.h"

#include <qcustomplot.h>

#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace sassx {

MetricsView::MetricsView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_model(new MetricsModel(session, this))
{
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumHeight(160);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFont(font());
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_plot->yAxis->setLabel(tr("% of peak / hit rate"));
    m_plot->yAxis->setRange(0, 100);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plot);
    split->addWidget(m_table);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MetricsView::replot);
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

void MetricsView::replot()
{
    m_plot->clearPlottables();
    // Percentages share an axis; other figures (time, bytes, cycles) stay in the table. Without any
    // (an estimate, or timing only) the chart shows the speed-ups instead of staying empty.
    std::vector<int> rows;
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->metrics()[size_t(r)].percent) rows.push_back(r);
    const bool speedups = rows.empty();
    if (speedups) rows.push_back(0); // MetricsModel's first row is the speed-up
    m_plot->yAxis->setLabel(speedups ? tr("Speed-up (×, > 1 = faster)") : tr("% of peak / hit rate"));
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
    m_plot->replot();
}

} // namespace sassx
