#include "widgets/diff_view.h"

#include "core/session/session.h"
#include "widgets/listing_delegate.h"

#include <QFontDatabase>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>

namespace sassx {

namespace {

QString controlText(const Control& c)
{
    QString s = QStringLiteral("S%1").arg(c.stall, 2);
    s += c.yield ? QStringLiteral(" Y") : QStringLiteral("  ");
    s += c.wbar == kNoBarrier ? QStringLiteral(" W-") : QStringLiteral(" W%1").arg(c.wbar);
    s += c.rbar == kNoBarrier ? QStringLiteral(" R-") : QStringLiteral(" R%1").arg(c.rbar);
    s += QStringLiteral(" w%1").arg(c.wait, 2, 16, QLatin1Char('0'));
    s += QStringLiteral(" u%1").arg(c.reuse, 1, 16);
    return s;
}

} // namespace

DiffView::DiffView(Session* session, QWidget* parent) : QAbstractScrollArea(parent), m_session(session)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(session, &Session::variantChanged, this, [this](int id) {
        if (id == m_left || id == m_right) reload();
    });
    connect(session, &Session::variantsChanged, this, &DiffView::reload);
    connect(session, &Session::variantRemoved, this, [this](int id) {
        if (id == m_left || id == m_right) reload();
    });
    connect(session, &Session::analysisReady, this, &DiffView::reload);
    reload();
}

void DiffView::setVariants(int left, int right)
{
    m_left = left;
    m_right = right;
    reload();
}

int DiffView::rowHeight() const
{
    return fontMetrics().height() + 2;
}

QString DiffView::summary() const
{
    if (!m_error.isEmpty()) return m_error;
    const VariantRecord* a = m_session->variant(m_left);
    const VariantRecord* b = m_session->variant(m_right);
    if (!a || !b) return {};
    return tr("%1 → %2: %n instruction(s) moved", nullptr, m_moved)
               .arg(QString::fromStdString(a->name), QString::fromStdString(b->name)) +
           tr(", %n with changed control bits", nullptr, m_controlChanged);
}

void DiffView::reload()
{
    m_error.clear();
    m_moved = m_controlChanged = 0;
    m_a = m_b = Schedule{};
    m_posB.clear();
    auto a = m_session->scheduleOf(m_left);
    auto b = m_session->scheduleOf(m_right);
    if (!a || !b) {
        m_error = QString::fromStdString(!a ? a.message() : b.message());
    } else {
        m_a = std::move(*a);
        m_b = std::move(*b);
        m_posB = m_b.positionOf();
        for (size_t p = 0; p < m_a.order.size(); ++p) {
            const uint32_t orig = m_a.order[p];
            if (m_posB[orig] != p) ++m_moved;
            if (!(m_a.control[orig] == m_b.control[orig])) ++m_controlChanged;
        }
    }
    updateScrollBars();
    viewport()->update();
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
    const auto analysis = m_session->analysis();
    if (!analysis || m_a.order.empty()) {
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   m_error.isEmpty() ? tr("No variants to compare") : m_error);
        return;
    }
    const int h = rowHeight();
    const int first = verticalScrollBar()->value();
    const int rows = viewport()->height() / h + 1;
    const int gap = 60;
    const int colWidth = (viewport()->width() - gap) / 2;
    const int rightX = colWidth + gap;
    const auto& insts = analysis->listing.instructions;
    const auto& cfg = analysis->cfg;
    auto drawRow = [&](int x, int y, uint32_t pos, const Schedule& s, const Schedule* other, bool moved) {
        const uint32_t orig = s.order[pos];
        const Instruction& ins = insts[orig];
        if (cfg.blocks[size_t(cfg.blockOf[pos])].first == pos) {
            p.setPen(palette().color(QPalette::Mid));
            p.drawLine(x, y, x + colWidth, y);
        }
        if (moved) p.fillRect(QRect(x, y, colWidth, h), QColor(255, 236, 214));
        const QString control = controlText(s.control[orig]);
        const int controlWidth = fontMetrics().horizontalAdvance(control) + 8;
        if (other && !(other->control[orig] == s.control[orig]))
            p.fillRect(QRect(x + colWidth - controlWidth, y, controlWidth, h), QColor(255, 230, 90));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(x + 2, y, 50, h), Qt::AlignVCenter,
                   QStringLiteral("%1").arg(pos * 16, 4, 16, QLatin1Char('0')));
        p.setPen(ListingDelegate::opcodeColor(int(ins.cls), ins.isMemory()));
        const QString text = QString::fromStdString(ins.text());
        p.drawText(QRect(x + 50, y, colWidth - 50 - controlWidth, h), Qt::AlignVCenter,
                   fontMetrics().elidedText(text, Qt::ElideRight, colWidth - 50 - controlWidth));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(x + colWidth - controlWidth + 4, y, controlWidth, h), Qt::AlignVCenter, control);
    };
    const uint32_t n = uint32_t(m_a.order.size());
    for (int r = 0; r < rows && uint32_t(first + r) < n; ++r) {
        const uint32_t pos = uint32_t(first + r);
        const int y = r * h;
        const uint32_t origA = m_a.order[pos];
        drawRow(0, y, pos, m_a, nullptr, m_posB[origA] != pos);
        drawRow(rightX, y, pos, m_b, &m_a, m_b.order[pos] != m_a.order[pos]);
    }
    // Links: from an instruction's row on the left to its row on the right.
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(QColor(0xe0, 0x8a, 0x00), 1.4));
    for (int r = 0; r < rows && uint32_t(first + r) < n; ++r) {
        const uint32_t pos = uint32_t(first + r);
        const uint32_t to = m_posB[m_a.order[pos]];
        if (to == pos) continue;
        const double y1 = r * h + h / 2.0;
        const double y2 = (int(to) - first) * h + h / 2.0;
        QPainterPath path(QPointF(colWidth, y1));
        path.cubicTo(colWidth + gap / 2.0, y1, colWidth + gap / 2.0, y2, rightX, y2);
        p.drawPath(path);
    }
}

} // namespace sassx
