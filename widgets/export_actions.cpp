#include "widgets/export_actions.h"

#include "core/common/atomic_file.h"
#include "core/session/schedule_exports.h"
#include "core/session/session.h"
#include "core/session/variant_import.h"
#include "core/session/workspace.h"
#include "widgets/models/variants_model.h"

#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>

namespace sassx {

namespace {

// An imported schedule the checker refuses is written as the user asked, and said to be unchecked.
QString uncheckedNote(const VariantRecord* v)
{
    return VariantsModel::uncheckedNote(v);
}

} // namespace

ExportActions::ExportActions(const Session* session, const VariantTree* variants, QWidget* dialogParent)
    : QObject(dialogParent), m_session(session), m_variants(variants), m_parent(dialogParent)
{
}

void ExportActions::populate(QMenu* menu)
{
    menu->addAction(tr("Tuned &Cubin…"), this, &ExportActions::exportCubin);
    menu->addAction(tr("&Diff as Text…"), this, [this] { exportDiff(false); });
    menu->addAction(tr("Diff as &HTML…"), this, [this] { exportDiff(true); });
    menu->addSeparator();
    QAction* wb = menu->addAction(tr("&Triton Cache Write-Back"), this, &ExportActions::writeBackTriton);
    QAction* rs = menu->addAction(tr("Triton Cache &Restore"), this, &ExportActions::restoreTriton);
    auto refresh = [this, wb, rs] {
        const bool triton = m_session->inputKind() == InputKind::TritonCache;
        for (QAction* a : {wb, rs}) {
            a->setEnabled(triton);
            a->setToolTip(triton ? QString()
                                 : tr("Open a Triton cache entry directory to write back into it."));
        }
    };
    connect(menu, &QMenu::aboutToShow, this, refresh);
    menu->setToolTipsVisible(true);
}

QString ExportActions::fileStem() const
{
    // "kernel.sm_80" for one copy of several ("kernel@sm_80"): '@' is awkward in file names.
    return m_session->kernelName().replace(QLatin1Char('@'), QLatin1Char('.'));
}

QString ExportActions::tunedCubinFileName() const
{
    return fileStem() + variantStem() + QStringLiteral(".tuned.cubin");
}

QString ExportActions::variantLabel() const
{
    const VariantRecord* v = m_variants->currentVariant();
    return v && !v->isOriginal() ? tr("variant \"%1\"").arg(QString::fromStdString(v->name))
                                 : tr("the original schedule");
}

QString ExportActions::variantStem() const
{
    // ".v3" for variant v3; characters a file name should not hold become '_'. An imported variant is
    // named after its file: its ".cubin" goes, or the export would end ".cubin.tuned.cubin".
    const VariantRecord* v = m_variants->currentVariant();
    if (!v || v->isOriginal()) return {};
    QString name = QString::fromStdString(v->name);
    if (name.endsWith(QLatin1String(".cubin"), Qt::CaseInsensitive)) name.chop(6);
    for (QChar& c : name)
        if (!c.isLetterOrNumber() && c != QLatin1Char('-') && c != QLatin1Char('_') && c != QLatin1Char('.'))
            c = QLatin1Char('_');
    return QLatin1Char('.') + name;
}

void ExportActions::exportCubin()
{
    auto kernel = m_variants->kernel();
    if (!kernel) {
        QMessageBox::information(m_parent, tr("Export"), tr("Open a kernel first."));
        return;
    }
    // The dialog names the variant it writes: the current one, which the listing shows.
    QString path = QFileDialog::getSaveFileName(m_parent, tr("Export Tuned Cubin: %1").arg(variantLabel()),
                                                tunedCubinFileName(), tr("Cubins (*.cubin)"));
    if (path.isEmpty()) return;
    auto bytes = kernel->write(m_variants->schedule());
    if (!bytes) {
        QMessageBox::warning(m_parent, tr("Export"), QString::fromStdString(bytes.message()));
        return;
    }
    const std::string_view contents(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    if (auto s = writeFileAtomically(path.toStdString(), contents); !s) {
        QMessageBox::warning(m_parent, tr("Export"), QString::fromStdString(s.message()));
        return;
    }
    const auto* current = m_variants->currentVariant();
    QString what = current && !current->isOriginal()
                       ? tr("variant %1").arg(QString::fromStdString(current->name))
                       : tr("the original schedule");
    if (const QString note = uncheckedNote(current); !note.isEmpty()) what += QStringLiteral(", ") + note;
    Q_EMIT done(tr("Wrote %1 (%2)").arg(path, what));
}

void ExportActions::exportDiff(bool html)
{
    auto kernel = m_variants->kernel();
    if (!kernel) {
        QMessageBox::information(m_parent, tr("Export"), tr("Open a kernel first."));
        return;
    }
    QString path = QFileDialog::getSaveFileName(
        m_parent, tr("Export Diff: the original against %1").arg(variantLabel()),
        fileStem() + variantStem() + (html ? QStringLiteral(".diff.html") : QStringLiteral(".diff")),
        html ? tr("HTML (*.html)") : tr("Text (*.diff *.txt)"));
    if (path.isEmpty()) return;
    const auto* current = m_variants->currentVariant();
    auto diff =
        diffFromOriginal(*kernel, m_variants->schedule(), current ? current->name : std::string("current"));
    if (!diff) {
        QMessageBox::warning(m_parent, tr("Export"), QString::fromStdString(diff.message()));
        return;
    }
    // The checker's verdict on the differences, as `sassx-cli diff` gives it.
    const CheckerVerdict checker = judgeDifferences(*kernel, m_variants->schedule());
    const std::string text = renderDiff(*diff, html ? DiffFormat::Html : DiffFormat::Text, 3, &checker);
    if (auto s = writeFileAtomically(path.toStdString(), text); !s) {
        QMessageBox::warning(m_parent, tr("Export"), QString::fromStdString(s.message()));
        return;
    }
    Q_EMIT done(tr("Wrote %1: %n instruction(s) moved", nullptr, int(diff->movedCount())).arg(path) +
                tr(", %n with changed control bits", nullptr, int(diff->controlChangedCount())));
}

void ExportActions::writeBackTriton()
{
    auto kernel = m_variants->kernel();
    if (!kernel) return;
    auto entry = tritonEntryCubin(m_session->inputPath().toStdString());
    if (!entry) {
        QMessageBox::warning(m_parent, tr("Triton Write-Back"), QString::fromStdString(entry.message()));
        return;
    }
    // Writing ptxas' own schedule back is a restore in disguise: ask before doing it.
    if (m_variants->schedule().isIdentity(kernel->analysis()) &&
        QMessageBox::question(m_parent, tr("Triton Write-Back"),
                              tr("The current variant is ptxas' original schedule: nothing would change "
                                 "in %1. Write it anyway?")
                                  .arg(QString::fromStdString(*entry)),
                              QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes)
        return;
    auto bytes = kernel->write(m_variants->schedule());
    if (!bytes) {
        QMessageBox::warning(m_parent, tr("Triton Write-Back"), QString::fromStdString(bytes.message()));
        return;
    }
    auto written = writeBackToTriton(m_session->inputPath().toStdString(), *bytes,
                                     m_session->kernelSymbol().toStdString());
    if (!written) {
        QMessageBox::warning(m_parent, tr("Triton Write-Back"), QString::fromStdString(written.message()));
        return;
    }
    QString message =
        tr("Wrote %1; ptxas' original is kept at %2 (File ▸ Export ▸ Triton Cache "
           "Restore puts it back). Restart the Triton process so it reloads the cubin.")
            .arg(QString::fromStdString(written->cubin), QString::fromStdString(written->backup));
    if (const QString note = uncheckedNote(m_variants->currentVariant()); !note.isEmpty())
        message += QLatin1Char(' ') + tr("The variant written is %1.").arg(note);
    QMessageBox::information(m_parent, tr("Triton Write-Back"), message);
    Q_EMIT done(message);
}

void ExportActions::restoreTriton()
{
    auto s = sassx::restoreTriton(m_session->inputPath().toStdString());
    if (!s) {
        QMessageBox::warning(m_parent, tr("Triton Restore"), QString::fromStdString(s.message()));
        return;
    }
    Q_EMIT done(tr("Restored ptxas' original cubin in %1").arg(m_session->inputPath()));
}

} // namespace sassx
