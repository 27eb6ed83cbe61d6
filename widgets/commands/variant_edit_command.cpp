#include "widgets/commands/variant_edit_command.h"

#include "core/session/session.h"

namespace sassx {

VariantEditCommand::VariantEditCommand(Session* session, std::optional<VariantRecord> before,
                                       VariantRecord after, int previousCurrent, const QString& text)
    : QUndoCommand(text), m_session(session), m_before(std::move(before)), m_after(std::move(after)),
      m_previousCurrent(previousCurrent)
{
}

void VariantEditCommand::redo()
{
    m_session->restoreVariant(m_after);
    m_session->setCurrentVariant(m_after.id);
}

void VariantEditCommand::undo()
{
    if (m_before)
        m_session->restoreVariant(*m_before);
    else
        m_session->removeVariant(m_after.id);
    m_session->setCurrentVariant(m_session->variant(m_previousCurrent) ? m_previousCurrent : 0);
}

DeleteVariantCommand::DeleteVariantCommand(Session* session, int id)
    : QUndoCommand(QObject::tr("Delete variant")), m_session(session),
      m_previousCurrent(session->currentVariantId())
{
    if (const VariantRecord* v = session->variant(id)) {
        m_record = *v;
        setText(QObject::tr("Delete %1").arg(QString::fromStdString(v->name)));
    }
    for (int child : session->childrenOf(id))
        m_children.push_back(*session->variant(child));
}

void DeleteVariantCommand::redo()
{
    m_session->removeVariant(m_record.id);
}

void DeleteVariantCommand::undo()
{
    m_session->restoreVariant(m_record);
    for (const VariantRecord& c : m_children)
        m_session->restoreVariant(c);
    m_session->setCurrentVariant(m_previousCurrent);
}

} // namespace sassx
