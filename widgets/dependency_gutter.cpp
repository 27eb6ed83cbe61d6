#include "widgets/dependency_gutter.h"

#include "core/session/session.h"
#include "widgets/listing_view.h"
#include "widgets/models/listing_model.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>

namespace sassx {

namespace {

bool isScoreboardEdge(DepKind k)
{
    return k == DepKind::SbProducer || k == DepKind::SbConsumer || k == DepKind::ImplicitCover;
}

QString instrLabel(const KernelAnalysis& a, const ListingModel& m, uint32_t orig)
{
    const Instruction& ins = a.listing.instructions[orig];
    const int pos = m.positionOfOriginal(int(orig));
    return QStringLiteral("%1 at %2")
        .arg(QString::fromStdString(ins.opcode))
        .arg(QStringLiteral("%1").arg(uint64_t(std::max(pos, 0)) * 16, 4, 16, QLatin1Char('0')));
}

} // namespace

DependencyGutter::DependencyGutter(Session* session, ListingView* view, QWidget* parent)
    : QWidget(parent), m_session(session), m_view(view)
{
    setMouseTracking(true);
    setMinimumWidth(110);
    auto repaint = [this] { update(); };
    connect(session, &Session::selectionChanged, this, repaint);
    connect(session, &Session::scheduleChanged, this, repaint);
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, repaint);
    connect(view->listingModel(), &QAbstractItemModel::modelReset, this, repaint);
}

int DependencyGutter::variantDistance(const Dependency& d) const
{
    const ListingModel* m = m_view->listingModel();
    const int pf = m->positionOfOriginal(int(d.from)), pt = m->positionOfOriginal(int(d.to));
    const auto& cycles = m->variantCycles();
    if (pf < 0 || pt < 0 || size_t(std::max(pf, pt)) >= cycles.size()) return d.distance;
    return cycles[size_t(pt)] - cycles[size_t(pf)];
}

QString DependencyGutter::describeEdge(int edgeIndex) const
{
    const auto a = m_session->analysis();
    if (!a || edgeIndex < 0 || size_t(edgeIndex) >= a->deps.edges().size()) return {};
    const Dependency& d = a->deps.edges()[size_t(edgeIndex)];
    const ListingModel& m = *m_view->listingModel();
    const QString from = instrLabel(*a, m, d.from), to = instrLabel(*a, m, d.to);
    const QString reg = d.hasReg ? QString::fromStdString(d.reg.name()) : QString();
    const int distance = variantDistance(d);
    QString s;
    switch (d.kind) {
    case DepKind::Raw:
        s = tr("%1 writes %2, which %3 reads%4: read after write.")
                .arg(from, reg, to, d.guardUse ? tr(" as its guard predicate") : QString());
        break;
    case DepKind::War:
        s = tr("%1 reads %2, which %3 overwrites: write after read (the read must happen first).")
                .arg(from, reg, to);
        break;
    case DepKind::Waw:
        s = tr("%1 and %3 both write %2: write after write (the later value must win).").arg(from, reg, to);
        break;
    case DepKind::SbProducer:
        s = tr("%1 sets scoreboard SB%2%3; %4 is the first instruction that waits on it.")
                .arg(from)
                .arg(d.scoreboard)
                .arg(d.readScoreboard ? tr(" (released once its sources are read)") : QString(), to);
        break;
    case DepKind::SbConsumer:
        s = tr("%1 waits on SB%2; %3 relies on that wait before using %4.")
                .arg(from)
                .arg(d.scoreboard)
                .arg(to, reg.isEmpty() ? tr("the value") : reg);
        break;
    case DepKind::ImplicitCover:
        s = tr("%1 has no scoreboard of its own; %2 completes after it on the same pipe and its SB%3 "
               "covers both, so %1 must stay before it.")
                .arg(from, to)
                .arg(d.scoreboard);
        break;
    case DepKind::Memory:
        s = tr("%1 and %2 access the same state space and at least one writes: their order is kept.")
                .arg(from, to);
        break;
    }
    s += QLatin1Char('\n') +
         tr("Distance in this variant: %n cycle(s) (static issue cycles).", nullptr, distance);
    if (d.hasDistanceBound()) {
        const int required = d.requiredDistance();
        s +=
            QLatin1Char(' ') +
            tr("Required: %1 cycle(s)%2.")
                .arg(required)
                .arg(
                    d.latencyFromTable
                        ? tr(" (latency table, or the least distance ptxas left for this pair in the kernel)")
                        : tr(" (ptxas's own distance: nothing proves a shorter one safe)"));
        if (distance <= required) s += QLatin1Char(' ') + tr("At the limit: it cannot move any closer.");
    }
    return s;
}

int DependencyGutter::rowCenterY(int row, bool* visible) const
{
    const int y = m_view->rowViewportPosition(row);
    const QPoint global = m_view->viewport()->mapToGlobal(QPoint(0, y + m_view->rowHeight(row) / 2));
    const int local = mapFromGlobal(global).y();
    const int top = mapFromGlobal(m_view->viewport()->mapToGlobal(QPoint(0, 0))).y();
    const int bottom = top + m_view->viewport()->height();
    *visible = local >= top && local <= bottom && y >= -m_view->rowHeight(row);
    return std::clamp(local, top + 4, bottom - 4);
}

void DependencyGutter::paintEvent(QPaintEvent*)
{
    m_drawn.clear();
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Window));
    const auto a = m_session->analysis();
    const int sel = m_session->selectedInstruction();
    const ListingModel* m = m_view->listingModel();
    if (!a || sel < 0 || m->rowOfOriginal(sel) < 0) return;
    p.setRenderHint(QPainter::Antialiasing);
    bool selVisible = false;
    const int selY = rowCenterY(m->rowOfOriginal(sel), &selVisible);

    struct Item
    {
        int edge;
        bool producer;
        int y;
        bool visible;
    };
    std::vector<Item> items;
    for (uint32_t e : a->deps.incoming(uint32_t(sel))) {
        bool vis = false;
        const int y = rowCenterY(m->rowOfOriginal(int(a->deps.edges()[e].from)), &vis);
        items.push_back({int(e), true, y, vis});
    }
    for (uint32_t e : a->deps.outgoing(uint32_t(sel))) {
        bool vis = false;
        const int y = rowCenterY(m->rowOfOriginal(int(a->deps.edges()[e].to)), &vis);
        items.push_back({int(e), false, y, vis});
    }
    // Short arrows on the inside lanes so that nested ones do not cross.
    std::sort(items.begin(), items.end(),
              [&](const Item& l, const Item& r) { return std::abs(l.y - selY) < std::abs(r.y - selY); });
    const int right = width() - 4;
    const int lane = std::max(5, (width() - 40) / std::max<int>(1, int(items.size())));
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    std::vector<QRect> labels;
    for (size_t k = 0; k < items.size(); ++k) {
        const Item& it = items[k];
        const Dependency& d = a->deps.edges()[size_t(it.edge)];
        const int distance = variantDistance(d);
        const bool atLimit = d.hasDistanceBound() && distance <= d.requiredDistance();
        QColor color = it.producer ? QColor(0x1f, 0x6f, 0xd0) : QColor(0x2e, 0x8b, 0x3e);
        if (atLimit) color = QColor(0xe0, 0x5a, 0x00);
        QPen pen(color, 1.6);
        if (isScoreboardEdge(d.kind))
            pen.setStyle(Qt::DashLine);
        else if (d.kind == DepKind::Memory)
            pen.setStyle(Qt::DotLine);
        p.setPen(pen);
        const int x = std::max(8, right - 14 - int(k) * lane);
        const int y1 = it.producer ? it.y : selY; // from
        const int y2 = it.producer ? selY : it.y; // to (arrow head)
        QPainterPath path(QPointF(right, y1));
        path.lineTo(x + 4, y1);
        path.quadTo(x, y1, x, y1 + (y2 > y1 ? 4 : -4));
        path.lineTo(x, y2 + (y2 > y1 ? -4 : 4));
        path.quadTo(x, y2, x + 4, y2);
        path.lineTo(right, y2);
        p.drawPath(path);
        // Arrow head (solid) at the consumer's end.
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawPolygon(
            QPolygonF({QPointF(right, y2), QPointF(right - 6, y2 - 3.5), QPointF(right - 6, y2 + 3.5)}));
        p.setBrush(Qt::NoBrush);
        // Distance label at the bend.
        p.setPen(color);
        const QString label = QStringLiteral("%1c").arg(distance);
        // Labels of nested arrows would pile up at the same height: move down until free.
        QRect labelRect(x - 30, (y1 + y2) / 2 - 8, 28, 16);
        for (int tries = 0;
             tries < 20 && std::any_of(labels.begin(), labels.end(),
                                       [&](const QRect& r) { return r.intersects(labelRect); });
             ++tries)
            labelRect.translate(0, 14);
        labels.push_back(labelRect);
        p.drawText(labelRect, Qt::AlignRight | Qt::AlignVCenter, label);
        if (!it.visible) {
            // The other end is off screen: an open marker at the clamped end says so.
            p.drawText(QRect(x + 2, it.y - (it.y < selY ? 0 : 14), 30, 14), Qt::AlignLeft,
                       it.y < selY ? "▲" : "▼");
        }
        m_drawn.push_back({it.edge, it.producer, x, std::min(y1, y2), std::max(y1, y2), atLimit, distance,
                           describeEdge(it.edge)});
    }
}

bool DependencyGutter::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint pos = help->pos();
        const DrawnEdge* best = nullptr;
        int bestDist = 7;
        for (const DrawnEdge& e : m_drawn) {
            int dist = 1000;
            if (pos.y() >= e.y1 - 3 && pos.y() <= e.y2 + 3) dist = std::abs(pos.x() - e.x);
            if (pos.x() >= e.x && (std::abs(pos.y() - e.y1) < 4 || std::abs(pos.y() - e.y2) < 4))
                dist = std::min(dist, std::min(std::abs(pos.y() - e.y1), std::abs(pos.y() - e.y2)));
            if (dist < bestDist) {
                bestDist = dist;
                best = &e;
            }
        }
        if (best)
            QToolTip::showText(help->globalPos(), best->text, this);
        else
            QToolTip::showText(help->globalPos(),
                               tr("Dependencies of the selected instruction: blue from producers, green to "
                                  "consumers; solid = register, dashed = scoreboard, dotted = memory order; "
                                  "orange = at the latency limit. Labels: distance in cycles."),
                               this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace sassx
