#pragma once
// A search's progress: one point per evaluation (x = evaluation, y = speed-up over the original, > 1 =
// faster), coloured by outcome (accepted green, rejected grey, failed red, re-measure blue), the best so
// far as a step line and the noise band around 1.0 (±noise floor) shaded. Failed evaluations without a
// speed-up sit on a baseline just above the lower edge, still red.
//
// Built for thousands of points: appends go straight into the graphs' data and a timer replots at most
// ten times a second; nothing is rebuilt per point. Clicking a point emits evaluationClicked(step).
#include "core/session/search_record.h"

#include <qcustomplot.h>

#include <QSet>
#include <QTimer>

#include <array>
#include <vector>

namespace sassx {

class SearchPlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit SearchPlot(QWidget* parent = nullptr);

    void clear();
    // Adds one evaluation (in step order); the plot catches up on its next timed replot.
    void append(const search::SearchEvaluation& e);
    // Replaces everything with `rows` and replots now (a finished run reopened).
    void setHistory(const std::vector<search::SearchEvaluation>& rows);
    // Ratio units (0.004 = ±0.4%); 0 hides the band. Evaluations carrying a floor set it too.
    void setNoiseFloor(double floor);
    // Rings the point of `step` (-1: none).
    void setMarkedStep(int step);
    // The figures are the static estimate's: the y axis says "speed-up est.".
    void setEstimate(bool estimate);
    bool isEstimate() const { return m_estimate; }
    // Applies pending changes (ranges, failure baseline) and replots now instead of on the timer.
    void flush();

    QCPGraph* outcomeGraph(search::Outcome outcome) const { return m_outcome[size_t(outcome)]; }
    QCPGraph* bestGraph() const { return m_best; }
    QCPItemRect* noiseBand() const { return m_band; }
    // The band's legend entry: "noise band ±0.40%", or "no noise band (estimate)" without a floor.
    QCPGraph* noiseBandEntry() const { return m_bandEntry; }
    int pointCount(search::Outcome outcome) const;
    int evaluationCount() const { return m_count; }
    double bestSoFar() const { return m_bestValue; }
    double noiseFloor() const { return m_noiseFloor; }
    double failureBaseline() const { return m_failY; }
    int replotCount() const { return m_replots; }
    bool replotPending() const { return m_timer.isActive(); }
    // The pixel where `step` is drawn (after a replot); (-1, -1) when it is not plotted.
    QPointF pixelOf(int step) const;
    // The step of the point nearest `pixel` within `tolerance` pixels, else -1.
    int stepAt(const QPointF& pixel, double tolerance = 8.0) const;

Q_SIGNALS:
    void evaluationClicked(int step);

private:
    void scheduleReplot();
    void updateRanges();
    void onMousePress(QMouseEvent* event);
    // The y label that fits the axis rect's height (plot_labels.h).
    void fitAxisLabel();

    std::array<QCPGraph*, 4> m_outcome{}; // indexed by search::Outcome
    QCPGraph* m_best = nullptr;
    QCPGraph* m_marker = nullptr;
    QCPItemRect* m_band = nullptr;
    QCPItemStraightLine* m_one = nullptr;
    QCPGraph* m_bandEntry = nullptr;
    QTimer m_timer;
    QSet<int> m_onBaseline; // failed steps without a speed-up: their y follows the lower edge
    int m_count = 0;
    int m_lastStep = -1;
    double m_bestValue = 1.0;
    bool m_bestTail = false; // the best line's last point only extends it to the newest evaluation
    double m_noiseFloor = 0.0;
    bool m_estimate = false;
    double m_minY = 1.0, m_maxY = 1.0;
    double m_failY = 0.0;
    int m_replots = 0;
};

} // namespace sassx
