#include "widgets/plot_labels.h"

#include <qcustomplot.h>

namespace sassx {

void fitYAxisLabel(QCustomPlot* plot, const QString& full, const QString& shorter)
{
    const QFontMetrics fm(plot->yAxis->labelFont());
    const QString want = fm.horizontalAdvance(full) + 8 <= plot->axisRect()->height() ? full : shorter;
    if (plot->yAxis->label() != want) plot->yAxis->setLabel(want);
}

} // namespace sassx
