#include "widgets/stalls_panel.h"

#include "core/session/measure_queue.h"
#include "core/session/variant_tree.h"
#include "widgets/models/stalls_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace sassx {

StallsPanel::StallsPanel(VariantTree* variants, MeasureQueue* measure, QWidget* parent)
    : QWidget(parent), m_variants(variants), m_measure(measure), m_model(new StallsModel(this))
{
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("stallsStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_sample = new QPushButton(tr("Sample Stalls"), this);
    m_sample->setToolTip(
        tr("Sample where the warps of the current variant wait: one launch on the GPU (CUPTI PC "
           "sampling); the samples stay with the variant"));
    connect(m_sample, &QPushButton::clicked, this,
            [this] { m_measure->sampleStalls(m_variants->currentVariantId()); });
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_status);
    layout->addWidget(m_sample);
    layout->addWidget(m_table, 1);
    connect(variants, &VariantTree::variantsChanged, this, &StallsPanel::refresh);
    connect(variants, &VariantTree::currentVariantChanged, this, &StallsPanel::refresh);
    connect(variants, &VariantTree::variantChanged, this, &StallsPanel::refresh);
    connect(measure, &MeasureQueue::stallsStarted, this,
            [this] { m_status->setText(tr("Sampling one launch…")); });
    connect(measure, &MeasureQueue::stallsFailed, this,
            [this](int, const QString& why) { m_status->setText(tr("No samples: %1").arg(why)); });
    refresh();
}

QString StallsPanel::statusText() const
{
    return m_status->text();
}

void StallsPanel::refresh()
{
    const int current = m_variants->currentVariantId();
    const auto variant = m_variants->kernelStalls(current);
    const auto original = current == 0 ? std::nullopt : m_variants->kernelStalls(0);
    std::map<QString, StallsModel::Row> rows;
    auto add = [&](const std::optional<KernelStalls>& k, bool isVariant) {
        if (!k || !k->samples) return;
        for (const auto& [word, n] : k->byWord) {
            auto& row = rows[QString::fromStdString(word)];
            row.word = QString::fromStdString(word);
            (isVariant ? row.variant : row.original) = double(n) / double(k->samples);
        }
    };
    add(variant, true);
    add(original, false);
    std::vector<StallsModel::Row> sorted;
    for (auto& [word, row] : rows)
        sorted.push_back(row);
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.variant.value_or(a.original.value_or(0)) > b.variant.value_or(b.original.value_or(0));
    });
    m_model->setRows(std::move(sorted));
    m_table->resizeColumnsToContents();

    const VariantRecord* v = m_variants->variant(current);
    m_sample->setEnabled(v && m_measure->measureUnavailableReason(current).isEmpty());
    if (!m_variants->analysis()) {
        m_status->setText(tr("Open a kernel to see where its warps wait."));
    } else if (v && v->stalls && variant) {
        const auto& p = *v->stalls;
        QString text = tr("%1 samples of one launch, a sample per SM every 2^%2 cycles — measured (%3, %4)")
                           .arg(variant->samples)
                           .arg(p.periodExponent)
                           .arg(QString::fromStdString(p.source.kind ? eval::figureKindName(*p.source.kind)
                                                                     : std::string()),
                                QString::fromStdString(p.source.device));
        for (const auto& w : p.warnings)
            text += QLatin1Char('\n') + QString::fromStdString(w);
        if (current != 0 && !original)
            text += QLatin1Char('\n') + tr("The original has no samples to compare with.");
        m_status->setText(text);
    } else {
        QString why = m_measure->measureUnavailableReason(current);
        // The reason is a sentence of its own (it may end in a parenthesis and a full stop).
        if (!why.isEmpty() && !why.endsWith(QLatin1Char('.'))) why += QLatin1Char('.');
        m_status->setText(
            why.isEmpty()
                ? tr("No stall samples for this variant yet: Sample Stalls runs one launch on the GPU.")
                : tr("No stall samples are available. %1 The listing's Stall column is the static stall "
                     "count of the control bits, not a measurement.")
                      .arg(why));
    }
}

} // namespace sassx
