#pragma once
// Axis labels that fit: a rotated y label longer than its axis rect is cut off at both ends, so a plot
// that can be short keeps a long and a short wording and shows the one that fits.
class QCustomPlot;
class QString;

namespace sassx {

// Sets `plot`'s y label to `full` when it fits the axis rect's current height, else to `shorter`. Call
// it from QCustomPlot::afterLayout (before drawing; the label's length does not change the height).
void fitYAxisLabel(QCustomPlot* plot, const QString& full, const QString& shorter);

} // namespace sassx
