#include "widgets/search_plot.h"

#include "widgets/plot_labels.h"

#include <algorithm>
#include <cmath>

namespace sassx {

using search::Outcome;
using search::SearchEvaluation;

namespace {

constexpr int kReplotMs = 100; // at most ten replots a second, however fast evaluations arrive

QString outcomeLabel(Outcome o)
{
    switch (o) {
    case Outcome::Accepted:
        return SearchPlot::tr("accepted");
    case Outcome::Rejected:
        return SearchPlot::tr("rejected");
    case Outcome::Failed:
        return SearchPlot::tr("failed");
    case Outcome::Measure:
        return SearchPlot::tr("re-measure");
    }
    return {};
}

QColor outcomeColor(Outcome o)
{
    switch (o) {
    case Outcome::Accepted:
        return QColor(0x2c, 0xa0, 0x2c);
    case Outcome::Rejected:
        return QColor(0xa0, 0xa0, 0xa0);
    case Outcome::Failed:
        return QColor(0xd6, 0x27, 0x28);
    case Outcome::Measure:
        return QColor(0x1f, 0x77, 0xb4);
    }
    return Qt::black;
}

} // namespace

SearchPlot::SearchPlot(QWidget* parent) : QCustomPlot(parent)
{
    setMinimumHeight(180);
    xAxis->setLabel(tr("evaluation"));
    yAxis->setLabel(tr("speed-up (> 1 = faster)"));
    // The legend is one row above the axis rect, so it never hides points.
    legend->setVisible(true);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
    legend->setFont(small);
    legend->setBorderPen(Qt::NoPen);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(0, 0.001);

    // The noise band and the 1.0 line sit under the points (grid layer), spanning the axis rect's width
    // whatever the x range.
    m_band = new QCPItemRect(this);
    m_band->setLayer(QStringLiteral("grid"));
    m_band->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_band->topLeft->setTypeY(QCPItemPosition::ptPlotCoords);
    m_band->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_band->bottomRight->setTypeY(QCPItemPosition::ptPlotCoords);
    for (QCPItemPosition* p : {m_band->topLeft, m_band->bottomRight}) {
        p->setAxisRect(axisRect());
        p->setAxes(xAxis, yAxis);
    }
    m_band->setPen(Qt::NoPen);
    m_band->setBrush(QColor(0x1f, 0x77, 0xb4, 40));
    m_band->setVisible(false);
    m_one = new QCPItemStraightLine(this);
    m_one->setLayer(QStringLiteral("grid"));
    m_one->point1->setCoords(0, 1);
    m_one->point2->setCoords(1, 1);
    m_one->setPen(QPen(QColor(0x60, 0x60, 0x60), 1, Qt::DashLine));

    for (Outcome o : {Outcome::Rejected, Outcome::Measure, Outcome::Failed, Outcome::Accepted}) {
        QCPGraph* g = addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, outcomeColor(o), outcomeColor(o), 5));
        g->setPen(QPen(outcomeColor(o)));
        g->setName(outcomeLabel(o));
        m_outcome[size_t(o)] = g;
    }
    m_best = addGraph();
    m_best->setLineStyle(QCPGraph::lsStepLeft);
    m_best->setPen(QPen(QColor(0x10, 0x60, 0x10), 2));
    m_best->setName(tr("best so far"));
    m_marker = addGraph();
    m_marker->setLineStyle(QCPGraph::lsNone);
    m_marker->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.5), Qt::NoBrush, 12));
    m_marker->removeFromLegend();
    // The band is an item, which a legend does not list: an empty graph carries its swatch and figure.
    m_bandEntry = addGraph();
    m_bandEntry->setLineStyle(QCPGraph::lsNone);
    m_bandEntry->setPen(QPen(m_band->brush().color().darker(150)));
    m_bandEntry->setBrush(m_band->brush());

    m_timer.setSingleShot(true);
    m_timer.setInterval(kReplotMs);
    connect(&m_timer, &QTimer::timeout, this, &SearchPlot::flush);
    connect(this, &QCustomPlot::afterReplot, this, [this] { ++m_replots; });
    // Every layout pass (a resize included) picks the label before anything is drawn.
    connect(this, &QCustomPlot::afterLayout, this, &SearchPlot::fitAxisLabel);
    connect(this, &QCustomPlot::mousePress, this, &SearchPlot::onMousePress);
    clear();
}

void SearchPlot::clear()
{
    for (QCPGraph* g : m_outcome)
        g->data()->clear();
    m_best->data()->clear();
    m_marker->data()->clear();
    m_onBaseline.clear();
    m_count = 0;
    m_lastStep = -1;
    m_bestValue = 1.0;
    m_bestTail = false;
    m_noiseFloor = 0.0;
    m_minY = m_maxY = 1.0;
    flush();
}

void SearchPlot::append(const SearchEvaluation& e)
{
    const bool hasValue = e.figures.speedup > 0 && std::isfinite(e.figures.speedup);
    QCPGraph* g = m_outcome[size_t(e.outcome)];
    if (hasValue) {
        g->addData(e.step, e.figures.speedup);
        m_minY = std::min(m_minY, e.figures.speedup);
        m_maxY = std::max(m_maxY, e.figures.speedup);
    } else {
        // Nothing to place it by: a red point on the failure baseline (its y follows the lower edge).
        g->addData(e.step, m_failY);
        m_onBaseline.insert(e.step);
    }
    if (e.figures.noiseFloor > m_noiseFloor) m_noiseFloor = e.figures.noiseFloor;

    // Best so far: a point where it rises, and a tail point that carries it to the newest evaluation.
    auto best = m_best->data();
    if (m_bestTail) best->remove(best->at(best->size() - 1)->key);
    if (e.best && e.figures.ok && hasValue && e.figures.speedup > m_bestValue) {
        m_bestValue = e.figures.speedup;
        best->add(QCPGraphData(e.step, m_bestValue));
        m_bestTail = false;
    } else {
        best->add(QCPGraphData(e.step, m_bestValue));
        m_bestTail = best->size() > 1;
    }
    m_lastStep = std::max(m_lastStep, e.step);
    ++m_count;
    scheduleReplot();
}

void SearchPlot::setHistory(const std::vector<SearchEvaluation>& rows)
{
    clear();
    for (const auto& e : rows)
        append(e);
    flush();
}

void SearchPlot::setNoiseFloor(double floor)
{
    m_noiseFloor = std::max(0.0, floor);
    scheduleReplot();
}

void SearchPlot::setMarkedStep(int step)
{
    m_marker->data()->clear();
    for (QCPGraph* g : m_outcome) {
        auto it = g->data()->findBegin(step, false);
        if (step >= 0 && it != g->data()->constEnd() && int(it->key) == step)
            m_marker->addData(it->key, it->value);
    }
    scheduleReplot();
}

int SearchPlot::pointCount(Outcome outcome) const
{
    return m_outcome[size_t(outcome)]->data()->size();
}

void SearchPlot::scheduleReplot()
{
    if (!m_timer.isActive()) m_timer.start();
}

void SearchPlot::updateRanges()
{
    const double low = std::min(m_minY, 1.0 - m_noiseFloor);
    const double high = std::max(m_maxY, 1.0 + m_noiseFloor);
    const double pad = std::max((high - low) * 0.08, 0.001);
    yAxis->setRange(low - 3 * pad, high + pad);
    const double failY = low - 2 * pad;
    if (failY != m_failY || !m_onBaseline.isEmpty()) {
        m_failY = failY;
        // Only the failed graph holds baseline points; its data stays sorted (keys do not change).
        auto data = m_outcome[size_t(Outcome::Failed)]->data();
        for (auto it = data->begin(); it != data->end(); ++it)
            if (m_onBaseline.contains(int(it->key))) it->value = m_failY;
        auto marker = m_marker->data();
        for (auto it = marker->begin(); it != marker->end(); ++it)
            if (m_onBaseline.contains(int(it->key))) it->value = m_failY;
    }
    const double right = std::max(10.0, double(m_lastStep) + 1.0);
    xAxis->setRange(-0.5, right + right * 0.02);
    m_band->setVisible(m_noiseFloor > 0);
    m_band->topLeft->setCoords(0, 1.0 + m_noiseFloor);
    m_band->bottomRight->setCoords(1, 1.0 - m_noiseFloor);
    for (Outcome o : {Outcome::Accepted, Outcome::Rejected, Outcome::Failed, Outcome::Measure})
        m_outcome[size_t(o)]->setName(QStringLiteral("%1 (%2)").arg(outcomeLabel(o)).arg(pointCount(o)));
    m_bandEntry->setName(m_noiseFloor > 0 ? tr("noise band ±%1%").arg(m_noiseFloor * 100.0, 0, 'f', 2)
                                          : tr("no noise band (estimate)"));
}

void SearchPlot::fitAxisLabel()
{
    // The estimate's figures say "est." wherever they are shown, the axis included.
    if (m_estimate)
        fitYAxisLabel(this, tr("speed-up est. (> 1 = faster)"), tr("speed-up est."));
    else
        fitYAxisLabel(this, tr("speed-up (> 1 = faster)"), tr("speed-up"));
}

void SearchPlot::setEstimate(bool estimate)
{
    if (m_estimate == estimate) return;
    m_estimate = estimate;
    fitAxisLabel();
    scheduleReplot();
}

void SearchPlot::flush()
{
    m_timer.stop();
    updateRanges();
    replot();
}

QPointF SearchPlot::pixelOf(int step) const
{
    for (QCPGraph* g : m_outcome) {
        auto it = g->data()->findBegin(step, false);
        if (it != g->data()->constEnd() && int(it->key) == step)
            return {xAxis->coordToPixel(it->key), yAxis->coordToPixel(it->value)};
    }
    return {-1, -1};
}

int SearchPlot::stepAt(const QPointF& pixel, double tolerance) const
{
    const double k0 = xAxis->pixelToCoord(pixel.x() - tolerance);
    const double k1 = xAxis->pixelToCoord(pixel.x() + tolerance);
    int best = -1;
    double bestDistance = tolerance * tolerance;
    for (QCPGraph* g : m_outcome) {
        if (!g->visible()) continue;
        const auto end = g->data()->findEnd(std::max(k0, k1), false);
        for (auto it = g->data()->findBegin(std::min(k0, k1), false); it != end; ++it) {
            const double dx = xAxis->coordToPixel(it->key) - pixel.x();
            const double dy = yAxis->coordToPixel(it->value) - pixel.y();
            if (dx * dx + dy * dy <= bestDistance) {
                bestDistance = dx * dx + dy * dy;
                best = int(it->key);
            }
        }
    }
    return best;
}

void SearchPlot::onMousePress(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) return;
    const int step = stepAt(event->position());
    if (step < 0) return;
    setMarkedStep(step);
    Q_EMIT evaluationClicked(step);
}

} // namespace sassx
