#include "widgets/dependency_gutter.h"

#include "core/session/annotation_json.h"
#include "core/session/kernel_stalls.h"
#include "core/session/variant_tree.h"
#include "widgets/listing_view.h"
#include "widgets/models/listing_model.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <climits>
#include <optional>

namespace sassx {

namespace {

bool isScoreboardEdge(DepKind k)
{
    return k == DepKind::SbProducer || k == DepKind::SbConsumer || k == DepKind::ImplicitCover;
}

QString instrLabel(const KernelAnalysis& a, const ListingModel& m, InstrId orig)
{
    const Instruction& ins = a.listing.instructions[orig.value()];
    const Position pos = m.positionOfOriginal(orig).value_or(Position(0));
    return QStringLiteral("%1 at %2")
        .arg(QString::fromStdString(ins.opcode))
        .arg(QStringLiteral("%1").arg(uint64_t(pos.value()) * 16, 4, 16, QLatin1Char('0')));
}

} // namespace

DependencyGutter::DependencyGutter(VariantTree* variants, ListingView* view, QWidget* parent)
    : QWidget(parent), m_variants(variants), m_view(view)
{
    setMouseTracking(true);
    setMinimumWidth(110);
    auto repaint = [this] { update(); };
    connect(variants, &VariantTree::selectionChanged, this, repaint);
    connect(variants, &VariantTree::scheduleChanged, this, repaint);
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, repaint);
    connect(view->listingModel(), &QAbstractItemModel::modelReset, this, repaint);
    connect(view->listingModel(), &QAbstractItemModel::dataChanged, this, repaint);
}

int DependencyGutter::variantDistance(const Dependency& d) const
{
    const ListingModel* m = m_view->listingModel();
    const std::optional<Position> pf = m->positionOfOriginal(InstrId(d.from));
    const std::optional<Position> pt = m->positionOfOriginal(InstrId(d.to));
    const auto& cycles = m->variantCycles();
    if (!pf || !pt || std::max(*pf, *pt) >= cycles.endIndex()) return d.distance;
    return cycles[*pt] - cycles[*pf];
}

QString DependencyGutter::describeEdge(int edgeIndex) const
{
    const auto a = m_variants->analysis();
    if (!a || edgeIndex < 0 || size_t(edgeIndex) >= a->deps.edges().size()) return {};
    const Dependency& d = a->deps.edges()[size_t(edgeIndex)];
    const ListingModel& m = *m_view->listingModel();
    const InstrId consumer(d.to);
    const QString from = instrLabel(*a, m, InstrId(d.from)), to = instrLabel(*a, m, consumer);
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
        // The producer may well set a scoreboard of the other kind (its row shows it): what it lacks is the
        // one for this register, a read scoreboard for a late source read or a write one for its result.
        s = (d.readScoreboard
                 ? tr("%1 sets no read scoreboard for %2; %3 reads after it on the same pipe and its SB%4 "
                      "covers both reads, so %1 must stay before it.")
                 : tr("%1 sets no write scoreboard for %2; %3 completes after it on the same pipe and its "
                      "SB%4 covers both results, so %1 must stay before it."))
                .arg(from, reg.isEmpty() ? tr("this register") : reg, to)
                .arg(d.scoreboard);
        break;
    case DepKind::Memory:
        s = tr("%1 and %2 access the same state space and at least one writes: their order is kept.")
                .arg(from, to);
        break;
    }
    // Where the consumer's warps wait (stall samples): the producer of a waited-for value is what a
    // move should hide.
    if (const auto& st = m.stalls();
        st && consumer < st->byOriginal.endIndex() && st->byOriginal[consumer].samples) {
        const auto& c = st->byOriginal[consumer];
        s += QLatin1Char('\n') +
             tr("Samples: %1% of the kernel's warps wait at %2, mostly %3 (%4%).")
                 .arg(100.0 * st->share(consumer), 0, 'f', 2)
                 .arg(to, QString::fromStdString(c.topWord()))
                 .arg(100.0 * double(c.byWord.front().second) / double(c.samples), 0, 'f', 0);
        const auto top = eval::parseStallWord(c.topWord());
        if (top && eval::waitsOnScoreboard(*top) && (d.kind == DepKind::Raw || d.kind == DepKind::SbConsumer))
            s += QLatin1Char(' ') + tr("It waits for a result such as this one from %1.").arg(from);
    }
    s += QLatin1Char('\n') +
         tr("Distance in this variant: %n cycle(s) (static issue cycles).", nullptr, distance);
    // The checker's figure and its source, as annotate states them (required_latency.h).
    if (const RequiredLatency r = requiredLatency(*a, d); r.source != LatencySource::None) {
        s += QLatin1Char(' ') + tr("Required: %1 cycle(s) (%2).")
                                    .arg(r.cycles)
                                    .arg(QString::fromStdString(latencySourceText(*a, d, r)));
        if (distance <= r.cycles) s += QLatin1Char(' ') + tr("At the limit: it cannot move any closer.");
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

void DependencyGutter::setExpanded(bool expanded)
{
    if (!expanded) m_pinned = false;
    if (m_expanded == expanded) return;
    m_expanded = expanded;
    update();
}

std::vector<DependencyGutter::Item> DependencyGutter::collectItems(int selY) const
{
    const auto a = m_variants->analysis();
    const ListingModel* m = m_view->listingModel();
    const int sel = m_variants->selectedInstruction();
    std::vector<Item> items;
    auto add = [&](uint32_t e, bool producer) {
        const Dependency& d = a->deps.edges()[e];
        bool vis = false;
        const int y = rowCenterY(m->rowOfOriginal(InstrId(producer ? d.from : d.to)), &vis);
        const int distance = variantDistance(d);
        items.push_back(
            {int(e), producer, y, vis, d.hasDistanceBound() && distance <= d.requiredDistance(), distance});
    };
    for (uint32_t e : a->deps.incoming(uint32_t(sel)))
        add(e, true);
    for (uint32_t e : a->deps.outgoing(uint32_t(sel)))
        add(e, false);
    // A register pair (R2:R3 of an IMAD.WIDE feeding an LDG's 64-bit address) is one dependency per
    // register: one arrow says it, the tooltip names both.
    std::vector<Item> merged;
    for (Item& it : items) {
        const Dependency& d = a->deps.edges()[size_t(it.edge)];
        auto same = std::find_if(merged.begin(), merged.end(), [&](const Item& m) {
            const Dependency& o = a->deps.edges()[size_t(m.edge)];
            return m.producer == it.producer && o.from == d.from && o.to == d.to && o.kind == d.kind &&
                   m.distance == it.distance && m.atLimit == it.atLimit;
        });
        if (same != merged.end())
            same->twins.push_back(it.edge);
        else
            merged.push_back(std::move(it));
    }
    items = std::move(merged);
    // Most telling first: at the limit, then on screen, then near the selection.
    std::stable_sort(items.begin(), items.end(), [&](const Item& l, const Item& r) {
        if (l.atLimit != r.atLimit) return l.atLimit;
        if (l.visible != r.visible) return l.visible;
        return std::abs(l.y - selY) < std::abs(r.y - selY);
    });
    return items;
}

QRect DependencyGutter::placeLabel(QRect want, bool optional)
{
    // Inside the gutter and beside the listing's rows (never beside its header), at the free height
    // nearest the one asked for, alternating below and above: nested arrows ask for one height. Sizes
    // come from the font in use, so this holds for any font. Two labels never touch (side by side,
    // "103c" and "23c" would read as "103c23c"): one that finds no free place, or is wider than the
    // gutter, is left out (a null rect) and its arrow's tooltip still gives the figure.
    if (want.width() > width() - 2) return {};
    want.moveLeft(std::clamp(want.left(), 1, std::max(1, width() - want.width() - 1)));
    const int top = std::clamp(mapFromGlobal(m_view->viewport()->mapToGlobal(QPoint(0, 0))).y(), 0, height());
    const int bottom = std::clamp(top + m_view->viewport()->height(), top, height()); // one past the last
    const int maxTop = std::max(top, bottom - want.height());
    const int first = std::clamp(want.top(), top, maxTop);
    auto isFree = [&](const QRect& r) {
        return std::none_of(m_labels.begin(), m_labels.end(), [&](const QRect& l) {
            return l.adjusted(-kLabelGap, 0, kLabelGap, 0).intersects(r);
        });
    };
    const int step = std::max(1, want.height());
    QRect chosen = want;
    chosen.moveTop(first);
    for (int k = 0; k <= (maxTop - top) / step + 1 && !isFree(chosen); ++k) {
        bool found = false;
        for (int sign : {1, -1}) {
            const int t = first + sign * (k + 1) * step;
            if (t < top || t > maxTop) continue;
            QRect r = want;
            r.moveTop(t);
            if (isFree(r)) {
                chosen = r;
                found = true;
                break;
            }
        }
        if (found) break;
    }
    if (optional && !isFree(chosen)) return {};
    m_labels.push_back(chosen);
    return chosen;
}

void DependencyGutter::drawArrow(QPainter& p, const Item& it, int selY, int x)
{
    const auto a = m_variants->analysis();
    const Dependency& d = a->deps.edges()[size_t(it.edge)];
    const int right = width() - 4;
    QColor color = it.producer ? QColor(0x1f, 0x6f, 0xd0) : QColor(0x2e, 0x8b, 0x3e);
    if (it.atLimit) color = QColor(0xe0, 0x5a, 0x00);
    QPen pen(color, 1.6);
    if (isScoreboardEdge(d.kind))
        pen.setStyle(Qt::DashLine);
    else if (d.kind == DepKind::Memory)
        pen.setStyle(Qt::DotLine);
    p.setPen(pen);
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
    // Distance label left of the lane, or right of it where the lane is near the edge.
    p.setPen(color);
    const QString label = QStringLiteral("%1c").arg(it.distance);
    const int w = p.fontMetrics().horizontalAdvance(label) + 2;
    const int h = p.fontMetrics().height() + 1;
    QRect want(x - w - 2, (y1 + y2) / 2 - h / 2, w, h);
    if (want.left() < 1) want.moveLeft(x + 3);
    if (const QRect at = placeLabel(want); !at.isNull())
        p.drawText(at, Qt::AlignRight | Qt::AlignVCenter, label);
    if (!it.visible) {
        // The other end is off screen: a marker at the clamped end says so.
        const int h = p.fontMetrics().height();
        p.drawText(QRect(x + 2, it.y - (it.y < selY ? 0 : h), h, h), Qt::AlignLeft,
                   it.y < selY ? QStringLiteral("▲") : QStringLiteral("▼"));
    }
    QString text = describeEdge(it.edge);
    if (!it.twins.empty()) {
        QStringList regs;
        for (int e : it.twins)
            if (const Dependency& t = a->deps.edges()[size_t(e)]; t.hasReg)
                regs << QString::fromStdString(t.reg.name());
        text += QLatin1Char('\n') + tr("The same dependency on %1, drawn as this one arrow.")
                                        .arg(regs.isEmpty()
                                                 ? tr("%n more register(s)", nullptr, int(it.twins.size()))
                                                 : regs.join(QStringLiteral(", ")));
    }
    m_drawn.push_back({it.edge, it.producer, x, std::min(y1, y2), std::max(y1, y2), it.atLimit, it.distance,
                       text, it.twins});
}

void DependencyGutter::drawBundle(QPainter& p, bool producer, const std::vector<Item>& members, int selY,
                                  int x)
{
    const auto a = m_variants->analysis();
    const int right = width() - 4;
    int lo = selY, hi = selY, dmin = INT_MAX, dmax = INT_MIN, offScreen = 0;
    for (const Item& it : members) {
        lo = std::min(lo, it.y);
        hi = std::max(hi, it.y);
        dmin = std::min(dmin, it.distance);
        dmax = std::max(dmax, it.distance);
        offScreen += !it.visible;
    }
    const int atLimit =
        int(std::count_if(members.begin(), members.end(), [](const Item& it) { return it.atLimit; }));
    QColor color = producer ? QColor(0x1f, 0x6f, 0xd0) : QColor(0x2e, 0x8b, 0x3e);
    if (atLimit) color = QColor(0xe0, 0x5a, 0x00);
    QColor faint = color;
    faint.setAlpha(110);
    // The trunk, joined to the selected row, and one short tick per member row: where they are,
    // without an arrow each.
    p.setPen(QPen(faint, 3, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(x, lo, x, hi);
    p.setPen(QPen(faint, 1));
    for (const Item& it : members)
        p.drawLine(x, it.y, x + 7, it.y);
    p.drawLine(x, selY, right, selY);
    // The badge: how many are folded.
    const QString count = QStringLiteral("+%1").arg(members.size());
    const int w = p.fontMetrics().horizontalAdvance(count) + 8;
    const int h = p.fontMetrics().height() + 3;
    QRect badge = placeLabel(QRect(x - w / 2, (lo + hi) / 2 - h / 2, w, h), false);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawRoundedRect(badge, 7, 7);
    p.setBrush(Qt::NoBrush);
    p.setPen(Qt::white);
    p.drawText(badge, Qt::AlignCenter, count);

    DrawnBundle b;
    b.producer = producer;
    b.x = x;
    b.y1 = lo;
    b.y2 = hi;
    b.badge = badge;
    const ListingModel& m = *m_view->listingModel();
    b.text = (producer ? tr("%n more producer(s)", nullptr, int(members.size()))
                       : tr("%n more consumer(s)", nullptr, int(members.size()))) +
             tr(", %1–%2 cycles away").arg(dmin).arg(dmax) +
             (offScreen ? tr(", %n off screen", nullptr, offScreen) : QString()) +
             (atLimit ? tr(", %n at the latency limit", nullptr, atLimit) : QString()) +
             tr(". Hover the badge to show every arrow; click it to keep them shown.");
    int listed = 0;
    for (const Item& it : members) {
        const Dependency& d = a->deps.edges()[size_t(it.edge)];
        b.edges.push_back(it.edge);
        b.edges.insert(b.edges.end(), it.twins.begin(), it.twins.end());
        if (++listed > 12) continue;
        b.text += QLatin1Char('\n') + instrLabel(*a, m, InstrId(producer ? d.from : d.to)) +
                  QStringLiteral(": %1c").arg(it.distance);
    }
    if (listed > 12) b.text += QLatin1Char('\n') + tr("… and %n more", nullptr, listed - 12);
    m_bundles.push_back(std::move(b));
}

void DependencyGutter::paintEvent(QPaintEvent*)
{
    m_drawn.clear();
    m_bundles.clear();
    m_labels.clear();
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Window));
    const auto a = m_variants->analysis();
    const int sel = m_variants->selectedInstruction();
    const ListingModel* m = m_view->listingModel();
    paintHeat(p);
    if (!a || sel < 0) return;
    const int selRow = m->rowOfOriginal(InstrId(uint32_t(sel)));
    if (selRow < 0) return;
    p.setRenderHint(QPainter::Antialiasing);
    bool selVisible = false;
    const int selY = rowCenterY(selRow, &selVisible);
    std::vector<Item> items = collectItems(selY);

    // Fold the least telling edges (sorted last) into one bundle per direction.
    std::vector<Item> folded[2];
    if (!isExpanded() && int(items.size()) > kMaxArrows + 1) { // a bundle of one would hide nothing
        for (size_t k = kMaxArrows; k < items.size(); ++k)
            folded[items[k].producer].push_back(items[k]);
        items.resize(kMaxArrows);
    }
    // Short arrows on the inside lanes so that nested ones do not cross; bundles outermost.
    std::sort(items.begin(), items.end(),
              [&](const Item& l, const Item& r) { return std::abs(l.y - selY) < std::abs(r.y - selY); });
    const int lanes = int(items.size()) + !folded[0].empty() + !folded[1].empty();
    const int right = width() - 4;
    const int lane = std::clamp((width() - 40) / std::max(1, lanes), 3, 14);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    int k = 0;
    for (const Item& it : items)
        drawArrow(p, it, selY, std::max(8, right - 14 - k++ * lane));
    for (int producer = 1; producer >= 0; --producer)
        if (!folded[producer].empty())
            drawBundle(p, producer, folded[producer], selY, std::max(12, right - 14 - k++ * lane));
}

void DependencyGutter::paintHeat(QPainter& p)
{
    // A heat strip at the right edge, row by row: where the current variant's warps wait (stall samples).
    const ListingModel* m = m_view->listingModel();
    if (!m->stalls()) return;
    const int first = std::max(0, m_view->rowAt(0));
    int last = m_view->rowAt(m_view->viewport()->height() - 1);
    if (last < 0) last = m->rowCount() - 1;
    const int top = mapFromGlobal(m_view->viewport()->mapToGlobal(QPoint(0, 0))).y();
    for (int row = first; row <= last; ++row) {
        const QVariant heat = m->index(row, ListingModel::SamplesColumn).data(ListingModel::SampleHeatRole);
        if (!heat.isValid() || heat.toDouble() <= 0) continue;
        const int y = top + m_view->rowViewportPosition(row);
        p.fillRect(QRect(width() - 3, y, 3, m_view->rowHeight(row)),
                   QColor(220, 40, 20, int(40 + 215 * std::min(1.0, heat.toDouble()))));
    }
}

void DependencyGutter::mouseMoveEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    const bool onBadge = std::any_of(m_bundles.begin(), m_bundles.end(), [&](const DrawnBundle& b) {
        return b.badge.adjusted(-3, -3, 3, 3).contains(pos);
    });
    if (onBadge) setExpanded(true);
    QWidget::mouseMoveEvent(event);
}

void DependencyGutter::mousePressEvent(QMouseEvent* event)
{
    const QPoint pos = event->position().toPoint();
    for (const DrawnBundle& b : m_bundles)
        if (b.badge.adjusted(-3, -3, 3, 3).contains(pos)) {
            m_pinned = true;
            setExpanded(true);
            return;
        }
    if (m_pinned) {
        // A click elsewhere in the gutter folds them again.
        setExpanded(false);
        return;
    }
    QWidget::mousePressEvent(event);
}

void DependencyGutter::leaveEvent(QEvent* event)
{
    if (!m_pinned) setExpanded(false);
    QWidget::leaveEvent(event);
}

bool DependencyGutter::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint pos = help->pos();
        for (const DrawnBundle& b : m_bundles)
            if (b.badge.adjusted(-3, -3, 3, 3).contains(pos) ||
                (std::abs(pos.x() - b.x) < 4 && pos.y() >= b.y1 && pos.y() <= b.y2)) {
                QToolTip::showText(help->globalPos(), b.text, this);
                return true;
            }
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
