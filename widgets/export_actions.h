#pragma once
// File ▸ Export: the tuned cubin of the current variant, its diff against the original (text or HTML)
// and the Triton cache write-back, all through core/rewrite.
#include <QObject>

class QMenu;
class QWidget;

namespace sassx {

class Session;
class VariantTree;

class ExportActions : public QObject
{
    Q_OBJECT
public:
    // The input's path, kind and kernel come from the session; the schedule written from the tree.
    ExportActions(const Session* session, const VariantTree* variants, QWidget* dialogParent);
    void populate(QMenu* menu);
    // The name Export ▸ Tuned Cubin offers: "kernel.v3.tuned.cubin" for the current variant v3.
    QString tunedCubinFileName() const;

Q_SIGNALS:
    // What an action did, in one line ("Wrote …"): the main window shows it on the status bar.
    void done(const QString& message);

private:
    void exportCubin();
    void exportDiff(bool html);
    void writeBackTriton();
    void restoreTriton();
    QString fileStem() const;
    // What an export writes, in words for its dialog ("variant \"v3\"", "the original schedule"), and
    // the part of the default file name that tells variants apart (".v3").
    QString variantLabel() const;
    QString variantStem() const;

    const Session* m_session;
    const VariantTree* m_variants;
    QWidget* m_parent;
};

} // namespace sassx
