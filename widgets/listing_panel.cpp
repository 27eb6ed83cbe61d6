#include "widgets/listing_panel.h"

#include "core/session/variant_tree.h"
#include "widgets/dependency_gutter.h"
#include "widgets/listing_view.h"
#include "widgets/models/listing_model.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QShortcut>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace sassx {

ListingPanel::ListingPanel(VariantTree* variants, SearchRuns* searches, EditController* controller,
                           QWidget* parent)
    : QWidget(parent), m_variants(variants)
{
    m_view = new ListingView(variants, searches, controller, this);
    m_gutter = new DependencyGutter(variants, m_view, this);

    m_findBar = new QWidget(this);
    auto* findLayout = new QHBoxLayout(m_findBar);
    findLayout->setContentsMargins(4, 2, 4, 2);
    m_findEdit = new QLineEdit(m_findBar);
    m_findEdit->setPlaceholderText(tr("Find (regular expression), e.g. LDG|STS or R1[0-9]\\b"));
    m_findEdit->setClearButtonEnabled(true);
    m_findStatus = new QLabel(m_findBar);
    auto* prev = new QToolButton(m_findBar);
    prev->setText(tr("Previous"));
    auto* next = new QToolButton(m_findBar);
    next->setText(tr("Next"));
    auto* close = new QToolButton(m_findBar);
    close->setText(tr("Close"));
    findLayout->addWidget(new QLabel(tr("Find:"), m_findBar));
    findLayout->addWidget(m_findEdit, 1);
    findLayout->addWidget(prev);
    findLayout->addWidget(next);
    findLayout->addWidget(m_findStatus);
    findLayout->addWidget(close);
    m_findBar->hide();
    connect(m_findEdit, &QLineEdit::returnPressed, this, [this] { find(m_findEdit->text(), true); });
    connect(next, &QToolButton::clicked, this, [this] { find(m_findEdit->text(), true); });
    connect(prev, &QToolButton::clicked, this, [this] { find(m_findEdit->text(), false); });
    connect(close, &QToolButton::clicked, m_findBar, &QWidget::hide);
    auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), m_findBar);
    connect(esc, &QShortcut::activated, m_findBar, &QWidget::hide);

    // What limits edits of this kernel (e.g. why nothing can move), said once above the listing instead
    // of leaving the user with drags that find no legal position.
    m_notices = new QLabel(this);
    m_notices->setObjectName(QStringLiteral("listingNotices"));
    m_notices->setWordWrap(true);
    m_notices->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notices->setContentsMargins(6, 3, 6, 3);
    m_notices->setStyleSheet(QStringLiteral("QLabel { background: #fff4d6; color: #5a4500; }"));
    m_notices->hide();
    // Every new input or kernel replaces the variant tree (with the kernel it edits).
    connect(variants, &VariantTree::variantsChanged, this, [this] {
        QStringList notices;
        if (const auto kernel = m_variants->kernel())
            for (const auto& n : kernel->notices())
                notices << QString::fromStdString(n);
        m_notices->setText(notices.join(QLatin1Char('\n')));
        m_notices->setVisible(!notices.isEmpty());
    });

    // A splitter, so that the gutter can be widened when an instruction has many dependencies.
    m_body = new QSplitter(Qt::Horizontal, this);
    m_body->setObjectName(QStringLiteral("listingSplitter"));
    m_body->setChildrenCollapsible(false);
    m_body->setHandleWidth(3);
    m_body->addWidget(m_gutter);
    m_body->addWidget(m_view);
    m_body->setStretchFactor(0, 0);
    m_body->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_findBar);
    layout->addWidget(m_notices);
    layout->addWidget(m_body, 1);
}

void ListingPanel::showFind()
{
    m_findBar->show();
    m_findEdit->setFocus();
    m_findEdit->selectAll();
}

bool ListingPanel::find(const QString& pattern, bool forward)
{
    const QRegularExpression re(pattern, QRegularExpression::CaseInsensitiveOption);
    if (!re.isValid() || pattern.isEmpty()) {
        m_findStatus->setText(pattern.isEmpty() ? QString() : tr("invalid: %1").arg(re.errorString()));
        return false;
    }
    const ListingModel* m = m_view->listingModel();
    const int rows = m->rowCount();
    if (rows == 0) return false;
    // Every match, so the bar can say "n of m".
    std::vector<int> matches;
    for (int row = 0; row < rows; ++row) {
        if (!m->positionOfRow(row)) continue; // a block separator
        const QString text = m->index(row, ListingModel::PredicateColumn).data().toString() +
                             QLatin1Char(' ') +
                             m->index(row, ListingModel::InstructionColumn).data().toString();
        if (re.match(text).hasMatch()) matches.push_back(row);
    }
    if (matches.empty()) {
        m_findStatus->setText(tr("no match"));
        return false;
    }
    const int start = m_view->currentIndex().isValid() ? m_view->currentIndex().row() : (forward ? -1 : rows);
    size_t k = 0;
    if (forward) {
        auto it = std::upper_bound(matches.begin(), matches.end(), start);
        k = it == matches.end() ? 0 : size_t(it - matches.begin()); // wraps to the first
    } else {
        auto it = std::lower_bound(matches.begin(), matches.end(), start);
        k = it == matches.begin() ? matches.size() - 1
                                  : size_t(it - matches.begin()) - 1; // wraps to the last
    }
    const int row = matches[k];
    m_view->setCurrentIndex(m->index(row, ListingModel::InstructionColumn));
    m_view->scrollTo(m->index(row, 0), QAbstractItemView::PositionAtCenter);
    m_findStatus->setText(tr("%1 of %2").arg(k + 1).arg(matches.size()));
    return true;
}

QString ListingPanel::findStatus() const
{
    return m_findStatus->text();
}

} // namespace sassx
