#include "widgets/commands/variant_edit_command.h"

#include "core/session/variant_tree.h"

namespace sassx {

VariantEditCommand::VariantEditCommand(VariantTree* variants, std::optional<VariantRecord> before,
                                       VariantRecord after, int previousCurrent, const QString& text)
    : QUndoCommand(text), m_variants(variants), m_before(std::move(before)), m_after(std::move(after)),
      m_previousCurrent(previousCurrent)
{
}

void VariantEditCommand::redo()
{
    m_variants->restoreVariant(m_after);
    m_variants->setCurrentVariant(m_after.id);
}

void VariantEditCommand::undo()
{
    if (m_before)
        m_variants->restoreVariant(*m_before);
    else
        m_variants->removeVariant(m_after.id);
    m_variants->setCurrentVariant(m_variants->variant(m_previousCurrent) ? m_previousCurrent : 0);
}

DeleteVariantCommand::DeleteVariantCommand(VariantTree* variants, int id)
    : QUndoCommand(QObject::tr("Delete variant")), m_variants(variants),
      m_previousCurrent(variants->currentVariantId())
{
    if (const VariantRecord* v = variants->variant(id)) {
        m_record = *v;
        setText(QObject::tr("Delete %1").arg(QString::fromStdString(v->name)));
    }
    for (int child : variants->childrenOf(id))
        m_children.push_back(*variants->variant(child));
}

void DeleteVariantCommand::redo()
{
    m_variants->removeVariant(m_record.id);
}

void DeleteVariantCommand::undo()
{
    m_variants->restoreVariant(m_record);
    for (const VariantRecord& c : m_children)
        m_variants->restoreVariant(c);
    m_variants->setCurrentVariant(m_previousCurrent);
}

} // namespace sassx
