// The listing's Source column and the highlight of one source line's instructions (ListingModel's part
// that reads the kernel's source map).
#include "core/session/source_lines.h"
#include "widgets/models/listing_model.h"

namespace sassx {

void ListingModel::setSourceMap(std::shared_ptr<const SourceMap> map)
{
    if (map == m_source) return;
    m_source = std::move(map);
    m_highlight.clear();
    if (!m_rows.empty()) Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

bool ListingModel::hasSourceLines() const
{
    return m_source && m_source->hasSource;
}

void ListingModel::setHighlightedInstructions(const std::vector<InstrId>& originals)
{
    IndexVector<InstrId, uint8_t> highlight(m_positionOfOriginal.size(), 0);
    for (InstrId i : originals)
        if (i < highlight.endIndex()) highlight[i] = 1;
    if (highlight == m_highlight) return;
    m_highlight = std::move(highlight);
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1),
                           {SourceHighlightRole});
}

bool ListingModel::isHighlighted(InstrId original) const
{
    return original < m_highlight.endIndex() && m_highlight[original] != 0;
}

QVariant ListingModel::sourceData(InstrId original, int column, int role) const
{
    if (role == SourceHighlightRole) return isHighlighted(original);
    if (column != SourceColumn) return {};
    const SourceMap* map = m_source.get();
    const SourceLocation* at =
        map && original.value() < map->byPosition.size() ? &map->byPosition[original.value()] : nullptr;
    switch (role) {
    case Qt::TextAlignmentRole:
        return int(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::DisplayRole:
        return at ? QString::fromStdString(map->describe(*at)) : QString();
    case Qt::ToolTipRole: {
        if (!at || (!at->hasSource() && !at->ptxLine))
            return map && !map->notes.empty() ? QString::fromStdString(map->notes.front())
                                              : tr("No line information for this instruction.");
        QStringList lines;
        if (at->hasSource()) {
            lines << QStringLiteral("%1:%2%3")
                         .arg(QString::fromStdString(map->files[size_t(at->file)].path))
                         .arg(at->line)
                         .arg(at->column ? QStringLiteral(":%1").arg(at->column) : QString());
            if (auto text = map->sourceText(*at); !text.empty())
                lines << QStringLiteral("    ") + QString::fromStdString(std::string(text)).trimmed();
            if (at->callFile >= 0)
                lines << tr("inlined from %1 at %2")
                             .arg(at->function >= 0
                                      ? QString::fromStdString(map->functions[size_t(at->function)])
                                      : tr("a function"),
                                  QString::fromStdString(map->describeCallSite(*at)));
        }
        if (at->ptxLine)
            lines << tr("PTX line %1: %2")
                         .arg(at->ptxLine)
                         .arg(QString::fromStdString(std::string(map->ptxText(at->ptxLine))).trimmed());
        return lines.join(QLatin1Char('\n'));
    }
    }
    return {};
}

} // namespace sassx
