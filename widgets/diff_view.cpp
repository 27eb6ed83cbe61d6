#include "widgets/diff_view.h"

#include "core/session/annotation_json.h"
#include "core/session/variant_tree.h"
#include "core/session/workspace.h"
#include "widgets/listing_delegate.h"
#include "widgets/models/variants_model.h"

#include <QFontDatabase>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>

#include <optional>

namespace sassx {

namespace {

QString controlString(const Control& c)
{
    return QString::fromStdString(controlText(c));
}

} // namespace

DiffView::DiffView(VariantTree* variants, QWidget* parent) : QAbstractScrollArea(parent), m_variants(variants)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Each side needs its address, its control bits and some of the instruction; narrower, the
    // control bits would be painted over the address.
    const int controlWidth = fontMetrics().horizontalAdvance(QStringLiteral("S04 Y1 W2 R- 0----5 a-c")) + 8;
    setMinimumWidth(2 * (50 + controlWidth + fontMetrics().horizontalAdvance(QString(16, QLatin1Char('M')))) +
                    kGap + verticalScrollBar()->sizeHint().width());
    connect(variants, &VariantTree::variantChanged, this, [this](int id) {
        if (id == m_left || id == m_right) reload();
    });
    connect(variants, &VariantTree::variantRemoved, this, [this](int id) {
        if (id == m_left || id == m_right) reload();
    });
    // A newly opened kernel (or a restored session: the whole tree replaced) never shows the last one's
    // variants: the original against its current one.
    connect(variants, &VariantTree::variantsChanged, this,
            [this] { setVariants(0, std::max(0, m_variants->currentVariantId())); });
    connect(variants, &VariantTree::currentVariantChanged, this, &DiffView::followCurrent);
    reload();
}

void DiffView::setVariants(int left, int right)
{
    m_left = left;
    m_right = right;
    reload();
    m_currentChange = -1;
    if (!m_changeRows.empty())
        showChange(0);
    else
        verticalScrollBar()->setValue(0);
}

void DiffView::followCurrent(int id)
{
    if (id == m_right || !m_variants->variant(id)) return;
    // The left side stays what it was (the original, or a variant picked for comparison) unless it is
    // the variant now shown, or gone.
    const int left = m_left == id || !m_variants->variant(m_left) ? 0 : m_left;
    setVariants(left, id);
}

void DiffView::mousePressEvent(QMouseEvent* event)
{
    QAbstractScrollArea::mousePressEvent(event);
    if (event->button() != Qt::LeftButton) return;
    const int row = firstVisibleRow() + int(event->position().y()) / rowHeight();
    // Either side names the same instruction by its original index; the right side's order is the one a
    // click on the right sees, and the left's on the left.
    const bool left = event->position().x() < (viewport()->width() - kGap) / 2;
    const Schedule& s = left ? m_a : m_b;
    if (row < 0 || row >= int(s.order.size())) return;
    m_variants->setSelectedInstruction(int(s.order[Position(uint32_t(row))].value()));
}

int DiffView::rowHeight() const
{
    return fontMetrics().height() + 2;
}

int DiffView::firstVisibleRow() const
{
    return verticalScrollBar()->value();
}

QString DiffView::rowText(bool right, Position position) const
{
    const auto analysis = m_variants->analysis();
    const Schedule& s = right ? m_b : m_a;
    if (!analysis || position >= s.order.endIndex()) return {};
    const InstrId orig = s.order[position];
    return QString::fromStdString(
        instructionText(analysis->listing.instructions[orig.value()], s.control[orig]));
}

QString DiffView::summary() const
{
    if (!m_error.isEmpty()) return m_error;
    const VariantRecord* a = m_variants->variant(m_left);
    const VariantRecord* b = m_variants->variant(m_right);
    if (!a || !b) return {};
    QString s = tr("%1 → %2: ").arg(QString::fromStdString(a->name), QString::fromStdString(b->name));
    if (m_moved == 0 && m_shifted == 0 && m_controlChanged == 0)
        s += tr("identical schedules");
    else
        s += tr("%n instruction(s) moved", nullptr, m_moved) +
             tr(", %n at a new offset", nullptr, m_shifted) +
             tr(", %n with changed control bits", nullptr, m_controlChanged);
    // An imported schedule the checker refuses says so here too, as the HTML export's header does.
    for (const VariantRecord* v : {a, b != a ? b : nullptr})
        if (const QString note = VariantsModel::uncheckedNote(v); !note.isEmpty())
            s += tr("; %1 is %2").arg(QString::fromStdString(v->name), note);
    return s;
}

void DiffView::reload()
{
    m_error.clear();
    m_moved = m_shifted = m_controlChanged = 0;
    m_a = m_b = Schedule{};
    m_diff = ScheduleDiff{};
    m_changeRows.clear();
    const auto analysis = m_variants->analysis();
    auto a = m_variants->scheduleOf(m_left);
    auto b = m_variants->scheduleOf(m_right);
    if (!analysis) {
        m_error = tr("No kernel is open");
    } else if (!a || !b) {
        m_error = QString::fromStdString(!a ? a.message() : b.message());
    } else {
        const VariantRecord* va = m_variants->variant(m_left);
        const VariantRecord* vb = m_variants->variant(m_right);
        auto d = diffSchedules(DiffSide::fromSchedule(*analysis, *a, va ? va->name : std::string()),
                               DiffSide::fromSchedule(*analysis, *b, vb ? vb->name : std::string()),
                               analysis->listing.kernel);
        if (!d) {
            m_error = QString::fromStdString(d.message());
        } else {
            m_a = std::move(*a);
            m_b = std::move(*b);
            m_diff = std::move(*d);
            m_moved = int(m_diff.movedCount());
            m_shifted = int(m_diff.shiftedCount());
            m_controlChanged = int(m_diff.controlChangedCount());
            for (const auto& e : m_diff.entries)
                if (e.moved || !e.control.empty()) m_changeRows.push_back(Position(e.bPos));
        }
    }
    // Stall samples of each side, when both have them: each row then shows its share, so the two
    // variants compare instruction by instruction.
    m_stallsA = m_variants->kernelStalls(m_left);
    m_stallsB = m_variants->kernelStalls(m_right);
    if (!m_stallsA || !m_stallsB) m_stallsA.reset(), m_stallsB.reset();
    if (m_currentChange >= int(m_changeRows.size())) m_currentChange = int(m_changeRows.size()) - 1;
    updateScrollBars();
    viewport()->update();
    Q_EMIT summaryChanged(summary());
}

void DiffView::showChange(int index)
{
    if (index < 0 || index >= int(m_changeRows.size())) return;
    m_currentChange = index;
    const int page = std::max(1, viewport()->height() / rowHeight());
    verticalScrollBar()->setValue(std::max(0, int(m_changeRows[size_t(index)].value()) - page / 4));
    viewport()->update();
    Q_EMIT changeShown(index, int(m_changeRows.size()));
}

bool DiffView::nextChange()
{
    // The first change below the current one, or below the top of the view when none is current.
    const int from =
        m_currentChange >= 0 ? int(m_changeRows[size_t(m_currentChange)].value()) : firstVisibleRow() - 1;
    for (size_t k = 0; k < m_changeRows.size(); ++k)
        if (int(m_changeRows[k].value()) > from) {
            showChange(int(k));
            return true;
        }
    return false;
}

bool DiffView::previousChange()
{
    const int from = m_currentChange >= 0
                         ? int(m_changeRows[size_t(m_currentChange)].value())
                         : firstVisibleRow() + std::max(1, viewport()->height() / rowHeight());
    for (size_t k = m_changeRows.size(); k-- > 0;)
        if (int(m_changeRows[k].value()) < from) {
            showChange(int(k));
            return true;
        }
    return false;
}

void DiffView::updateScrollBars()
{
    const int rows = int(m_a.order.size());
    const int page = std::max(1, viewport()->height() / rowHeight());
    verticalScrollBar()->setRange(0, std::max(0, rows - page));
    verticalScrollBar()->setPageStep(page);
}

void DiffView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void DiffView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), palette().color(QPalette::Base));
    const auto analysis = m_variants->analysis();
    if (!analysis || m_a.order.empty()) {
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   m_error.isEmpty() ? tr("No variants to compare") : m_error);
        return;
    }
    const int h = rowHeight();
    const int first = verticalScrollBar()->value();
    const int rows = viewport()->height() / h + 1;
    const int gap = kGap;
    const int colWidth = (viewport()->width() - gap) / 2;
    const int rightX = colWidth + gap;
    const auto& insts = analysis->listing.instructions;
    const auto& cfg = analysis->cfg;
    const std::optional<Position> current =
        m_currentChange >= 0 ? std::optional(m_changeRows[size_t(m_currentChange)]) : std::nullopt;
    auto drawRow = [&](int x, int y, Position pos, const Schedule& s, const DiffEntry& e) {
        const InstrId orig = s.order[pos];
        const Instruction& ins = insts[orig.value()];
        if (firstPosition(blockOfPosition(cfg, pos)) == pos) {
            p.setPen(palette().color(QPalette::Mid));
            p.drawLine(x, y, x + colWidth, y);
        }
        if (e.moved) p.fillRect(QRect(x, y, colWidth, h), QColor(255, 236, 214));
        if (current && Position(e.bPos) == *current && x > 0) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 2));
            p.drawRect(QRect(x + 1, y + 1, colWidth - 2, h - 2));
        }
        const QString control = controlString(s.control[orig]);
        const int bitsWidth = fontMetrics().horizontalAdvance(control) + 8;
        if (!e.control.empty())
            p.fillRect(QRect(x + colWidth - bitsWidth, y, bitsWidth, h), QColor(255, 230, 90));
        int rightWidth = bitsWidth; // control bits, and the samples' share left of them
        if (const auto& st = x > 0 ? m_stallsB : m_stallsA) {
            const int w = fontMetrics().horizontalAdvance(QStringLiteral("00.0%")) + 8;
            const double share = st->share(orig);
            const QRect cell(x + colWidth - bitsWidth - w, y, w, h);
            if (share > 0) p.fillRect(cell, QColor(220, 40, 20, int(std::min(170.0, 20 + 1500 * share))));
            p.setPen(palette().color(QPalette::Text));
            if (st->byOriginal[orig].samples)
                p.drawText(cell.adjusted(0, 0, -4, 0), Qt::AlignVCenter | Qt::AlignRight,
                           QStringLiteral("%1%").arg(100.0 * share, 0, 'f', 1));
            rightWidth += w;
        }
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(x + 2, y, 50, h), Qt::AlignVCenter,
                   QStringLiteral("%1").arg(pos.value() * 16, 4, 16, QLatin1Char('0')));
        p.setPen(ListingDelegate::opcodeColor(int(ins.cls), ins.isMemory()));
        const QString text = rowText(x > 0, pos);
        p.drawText(QRect(x + 50, y, colWidth - 50 - rightWidth, h), Qt::AlignVCenter,
                   fontMetrics().elidedText(text, Qt::ElideRight, colWidth - 50 - rightWidth));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(x + colWidth - bitsWidth + 4, y, bitsWidth, h), Qt::AlignVCenter, control);
    };
    const Position n = m_a.order.endIndex();
    for (int r = 0; r < rows && Position(uint32_t(first + r)) < n; ++r) {
        const Position pos(uint32_t(first + r));
        const int y = r * h;
        // The diff's sides are plain rows: row p of a side is position p of its schedule.
        drawRow(0, y, pos, m_a, m_diff.entries[m_diff.aToB[pos.value()]]);
        drawRow(rightX, y, pos, m_b, m_diff.entries[pos.value()]);
    }
    // Links: from an instruction's row on the left to its row on the right.
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(QColor(0xe0, 0x8a, 0x00), 1.4));
    for (int r = 0; r < rows && Position(uint32_t(first + r)) < n; ++r) {
        const Position pos(uint32_t(first + r));
        const Position to(m_diff.aToB[pos.value()]);
        if (to == pos) continue;
        const double y1 = r * h + h / 2.0;
        const double y2 = (int(to.value()) - first) * h + h / 2.0;
        QPainterPath path(QPointF(colWidth, y1));
        path.cubicTo(colWidth + gap / 2.0, y1, colWidth + gap / 2.0, y2, rightX, y2);
        p.drawPath(path);
    }
}

} // namespace sassx
