#include "widgets/source_panel.h"

#include "core/session/variant_tree.h"
#include "widgets/listing_view.h"
#include "widgets/models/listing_feed.h"
#include "widgets/models/listing_model.h"
#include "widgets/models/source_model.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace sassx {

SourcePanel::SourcePanel(VariantTree* variants, ListingView* listing, QWidget* parent)
    : QWidget(parent), m_variants(variants), m_view(listing), m_listing(listing->listingModel()),
      m_model(new SourceModel(this)), m_proxy(new QSortFilterProxyModel(this))
{
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("sourceStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_column = new QCheckBox(tr("Source column in the listing"), this);
    m_column->setObjectName(QStringLiteral("sourceColumnToggle"));
    m_column->setToolTip(tr("Each instruction's file:line beside its control bits (the listing may then need "
                            "a wider window)"));
    connect(m_column, &QCheckBox::toggled, this, &SourcePanel::showListingColumn);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SourceModel::SortRole);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("sourceTable"));
    m_table->setModel(m_proxy);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SourceModel::LineColumn, Qt::AscendingOrder);
    m_table->setWordWrap(false);
    m_folder = new QPushButton(tr("Source Folder…"), this);
    m_folder->setObjectName(QStringLiteral("sourceFolderButton"));
    m_folder->setToolTip(tr("Point to the folder that holds the source files not found where the line "
                            "tables say (as a debugger's substitute-path); kept with the session"));
    connect(m_folder, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Source Folder"));
        if (!folder.isEmpty()) addSourceFolder(folder);
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_status);
    auto* row = new QHBoxLayout;
    row->addWidget(m_column, 1);
    row->addWidget(m_folder);
    layout->addLayout(row);
    layout->addWidget(m_table, 1);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!m_syncing) lineChosen(m_proxy->mapToSource(current).row(), true);
            });
    connect(variants, &VariantTree::variantsChanged, this, &SourcePanel::refresh);
    connect(variants, &VariantTree::scheduleChanged, this, &SourcePanel::refresh);
    connect(variants, &VariantTree::variantChanged, this, [this](int id) {
        if (id == m_variants->currentVariantId()) refresh();
    });
    connect(variants, &VariantTree::selectionChanged, this, &SourcePanel::followSelection);
    refresh();
}

void SourcePanel::setSourceFolders(const std::vector<SourceFolder>& folders)
{
    m_folders = folders;
    sassx::setSourceFolders(folders);
    m_listing->setSourceMap(sourceMapOf(*m_variants));
    refresh();
}

bool SourcePanel::addSourceFolder(const QString& folder)
{
    const std::shared_ptr<const SourceMap> map = m_model->lines().map;
    if (!map) return false;
    for (const SourceFile& f : map->files) {
        if (!f.foundAt.empty()) continue;
        std::vector<SourceFolder> folders = m_folders;
        const std::string dir = QFileInfo(QString::fromStdString(f.path)).path().toStdString();
        const SourceFolder added{dir == "." ? std::string() : dir,
                                 QFileInfo(folder).absoluteFilePath().toStdString()};
        if (std::find(folders.begin(), folders.end(), added) == folders.end()) folders.push_back(added);
        setSourceFolders(folders);
        Q_EMIT sourceFoldersChosen(folders);
        return true;
    }
    return false;
}

QString SourcePanel::statusText() const
{
    return m_status->text();
}

int SourcePanel::currentLine() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? m_proxy->mapToSource(current).row() : -1;
}

void SourcePanel::chooseLine(int row)
{
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, SourceModel::LineColumn));
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                          QItemSelectionModel::Rows);
}

// Shown as wide as its widest file:line in the listing's font, so no line is cut off.
void SourcePanel::showListingColumn(bool on)
{
    const int column = ListingModel::SourceColumn;
    if (m_view->isColumnHidden(column) != on) return;
    m_view->setColumnHidden(column, !on);
    if (on) fitListingColumn();
    m_view->saveHeaderState();
}

void SourcePanel::fitListingColumn()
{
    const int column = ListingModel::SourceColumn;
    if (m_view->isColumnHidden(column) || !m_listing->hasSourceLines()) return;
    const QFontMetrics fm(m_view->font());
    int widest = fm.horizontalAdvance(m_listing->headerData(column, Qt::Horizontal).toString());
    for (int r = 0; r < m_listing->rowCount(); ++r)
        widest = std::max(widest, fm.horizontalAdvance(m_listing->index(r, column).data().toString()));
    m_view->horizontalHeader()->resizeSection(column, widest + 16);
    m_view->fitInstructionColumn();
}

void SourcePanel::refresh()
{
    SourceLines lines;
    lines.map = sourceMapOf(*m_variants);
    const auto analysis = m_variants->analysis();
    if (lines.map && lines.map->hasSource && analysis &&
        lines.map->byPosition.size() == analysis->listing.instructions.size()) {
        const int current = m_variants->currentVariantId();
        const auto stalls = m_variants->kernelStalls(current);
        std::optional<ScheduleDiff> diff;
        if (current != 0)
            if (auto d = diffAgainstOriginal(*analysis, m_variants->schedule())) diff = std::move(*d);
        lines.lines = summarizeSourceLines(*lines.map, stalls ? &*stalls : nullptr, diff ? &*diff : nullptr);
        lines.hasSamples = stalls && stalls->samples;
        lines.hasVariant = bool(diff);
    }
    const int chosen = currentLine();
    const std::vector<InstrId> chosenInstructions =
        chosen >= 0 ? m_model->lines().lines[size_t(chosen)].instructions : std::vector<InstrId>{};
    const bool sameKernel = lines.map == m_model->lines().map;
    m_syncing = true;
    m_model->setLines(std::move(lines));
    m_syncing = false;
    m_table->resizeColumnToContents(SourceModel::LineColumn);
    for (int c = SourceModel::InstructionsColumn; c < SourceModel::TextColumn; ++c)
        m_table->resizeColumnToContents(c);

    m_column->setChecked(!m_view->isColumnHidden(ListingModel::SourceColumn));
    bool anyMissing = false;
    if (m_model->lines().map)
        for (const SourceFile& f : m_model->lines().map->files)
            anyMissing |= f.foundAt.empty();
    m_folder->setEnabled(anyMissing);
    if (!sameKernel) fitListingColumn();
    const SourceLines& now = m_model->lines();
    if (!now.map)
        m_status->setText(tr("No kernel is open."));
    else if (now.map->empty())
        m_status->setText(QString::fromStdString(now.map->notes.empty() ? std::string("No line information.")
                                                                        : now.map->notes.front()));
    else {
        QStringList missing;
        for (const SourceFile& f : now.map->files)
            if (f.foundAt.empty()) missing << QString::fromStdString(f.name);
        m_status->setText(tr("%n source line(s)", nullptr, int(now.lines.size())) +
                          (missing.isEmpty()
                               ? QString()
                               : tr("; not found, so without text: %1 (Source Folder… points to them)")
                                     .arg(missing.join(", "))));
        for (const SourceFolder& f : m_folders)
            m_status->setText(m_status->text() + QLatin1Char('\n') +
                              tr("Source folder: %1 for %2")
                                  .arg(QString::fromStdString(f.to), f.from.empty()
                                                                         ? tr("any file by name")
                                                                         : QString::fromStdString(f.from)));
    }
    // The same kernel keeps its chosen line (an edit, samples arriving); another kernel starts afresh.
    if (sameKernel && !chosenInstructions.empty()) {
        const int row = m_model->rowOfInstruction(chosenInstructions.front());
        m_syncing = true;
        if (row >= 0) chooseLine(row);
        m_syncing = false;
        if (row >= 0) lineChosen(row, false);
    } else {
        m_listing->setHighlightedInstructions({});
        followSelection(m_variants->selectedInstruction());
    }
}

// The listing selected an instruction: its line becomes the chosen one (with its instructions
// highlighted), without moving the listing's selection.
void SourcePanel::followSelection(int original)
{
    const int row = original >= 0 ? m_model->rowOfInstruction(InstrId(uint32_t(original))) : -1;
    if (row < 0 || row == currentLine()) return;
    m_syncing = true;
    chooseLine(row);
    m_table->scrollTo(m_proxy->mapFromSource(m_model->index(row, 0)));
    m_syncing = false;
    lineChosen(row, false);
}

// A line was chosen: its instructions light up in the listing, and, when the user chose it here, the
// first of them in the current order becomes the selected instruction, in the middle of the listing.
void SourcePanel::lineChosen(int row, bool fromUser)
{
    if (row < 0 || size_t(row) >= m_model->lines().lines.size()) {
        m_listing->setHighlightedInstructions({});
        return;
    }
    const std::vector<InstrId>& instructions = m_model->lines().lines[size_t(row)].instructions;
    m_listing->setHighlightedInstructions(instructions);
    if (!fromUser) return;
    const int selected = m_variants->selectedInstruction();
    if (selected >= 0 &&
        std::binary_search(instructions.begin(), instructions.end(), InstrId(uint32_t(selected))))
        return;
    std::optional<InstrId> first;
    std::optional<Position> firstPosition;
    for (InstrId i : instructions) {
        const std::optional<Position> p = m_listing->positionOfOriginal(i);
        if (p && (!firstPosition || *p < *firstPosition)) first = i, firstPosition = p;
    }
    if (!first) return;
    m_variants->setSelectedInstruction(int(first->value()));
    // The first at the middle of the listing, so that the rest of the line shows below it.
    m_view->scrollTo(m_listing->index(m_listing->rowOfOriginal(*first), 0),
                     QAbstractItemView::PositionAtCenter);
}

} // namespace sassx
