// MainWindow's files: opening inputs and session files (with the kernel picker), saving, the launch spec
// and stall-sample dialogs, the unsaved-changes and autosave questions, and the recent files.
#include "widgets/main_window.h"

#include "core/session/input_loader.h"
#include "core/session/session.h"
#include "widgets/launch_spec_check.h"
#include "widgets/tune_dashboard_data.h" // TuneKernelOpen, dropped with a cancelled open

#include <QAction>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QInputDialog>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>

#include <algorithm>

namespace sassx {

namespace {

constexpr int kMaxRecent = 10;
const QStringList kArchs = {QStringLiteral("sm_80"), QStringLiteral("sm_86"),  QStringLiteral("sm_89"),
                            QStringLiteral("sm_90"), QStringLiteral("sm_100"), QStringLiteral("sm_120")};

bool isSessionFile(const QString& path)
{
    return path.endsWith(QLatin1String(".sassx.json")) || path.endsWith(QLatin1String(".sassx"));
}

} // namespace

bool MainWindow::replaceSession()
{
    const QString next = QFileInfo(m_session->pendingInputPath().isEmpty() ? m_session->inputPath()
                                                                           : m_session->pendingInputPath())
                             .fileName();
    if (maybeSaveChanges(next)) return true;
    // Cancelled: the new input is dropped and nothing on screen changes.
    m_pendingRecent.clear();
    m_pendingTune.reset();
    statusBar()->showMessage(tr("Opening %1 cancelled; nothing changed").arg(next), 10000);
    return false;
}

bool MainWindow::maybeSaveChanges(const QString& replacement)
{
    if (!m_session->store()->isModified() || m_session->inputPath().isEmpty()) return true;
    const bool never = m_session->store()->sessionPath().isEmpty();
    const QString what =
        never
            ? tr("The session of %1 has never been saved.").arg(QFileInfo(m_session->inputPath()).fileName())
            : tr("%1 has unsaved changes.").arg(QFileInfo(m_session->store()->sessionPath()).fileName());
    const QString first =
        replacement.isEmpty() ? tr("Save it first?") : tr("Save it before %1 replaces it?").arg(replacement);
    QMessageBox box(QMessageBox::Warning, tr("Unsaved changes"), what + QLatin1Char(' ') + first,
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unsavedChanges"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        return saveSession(false);
    case QMessageBox::Discard:
        // The autosave stays until the session it protects is replaced (SessionStore::forgetFile): an
        // open that fails after this leaves the edited session on screen, and it must stay protected.
        return true;
    default:
        return false;
    }
}

void MainWindow::offerAutosave()
{
    QString input;
    if (!SessionStore::autosaveAvailable(&input)) return;
    const QDateTime when = QFileInfo(SessionStore::autosavePath()).lastModified();
    QMessageBox box(QMessageBox::Question, tr("Restore autosave"),
                    tr("A session of %1 that was never saved was autosaved on %2. Restore it?")
                        .arg(QFileInfo(input).fileName(), QLocale().toString(when, QLocale::ShortFormat)),
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setObjectName(QStringLiteral("restoreAutosave"));
    box.setDefaultButton(QMessageBox::Yes);
    if (box.exec() != QMessageBox::Yes) {
        QFile::remove(SessionStore::autosavePath()); // declined: not offered again
        return;
    }
    QString error;
    if (!m_session->store()->restoreAutosave(&error)) QMessageBox::warning(this, tr("Cannot restore"), error);
}

void MainWindow::openPath(const QString& path)
{
    // A tune database opens in its dock beside the kernel: what is open stays (a kernel of it opened
    // later asks about unsaved changes then).
    if (!isSessionFile(path) && classifyInput(path.toStdString()).sqliteDatabase) {
        openTuneDatabase(path);
        return;
    }
    if (isSessionFile(path)) {
        // A session file replaces the session as soon as it is read: asked first. Any other input is
        // asked about once it has opened and its kernel was chosen (the session's replace check).
        if (!maybeSaveChanges()) return;
        QString error;
        if (!m_session->store()->openSession(path, &error))
            QMessageBox::warning(this, tr("Cannot open session"), error);
        else
            addRecent(path);
        return;
    }
    const InputTarget target = classifyInput(path.toStdString());
    const QString what = QString::fromStdString(target.path);
    if (target.tritonEntry && what != path)
        statusBar()->showMessage(tr("Opening the Triton cache entry %1").arg(what), 10000);
    QString arch = QString::fromLatin1(kDefaultArch);
    if (target.needsArch) {
        // Source needs an arch to compile for; the last choice is the default next time.
        QSettings settings;
        const QString last = settings.value(QStringLiteral("open/arch"), arch).toString();
        bool ok = false;
        arch = QInputDialog::getItem(this, tr("Compile for"),
                                     tr("Architecture for %1:").arg(QFileInfo(path).fileName()), kArchs,
                                     std::max<int>(0, int(kArchs.indexOf(last))), true, &ok);
        if (!ok) return;
        settings.setValue(QStringLiteral("open/arch"), arch);
    }
    m_pendingRecent = what;
    m_session->openInput(what, arch);
}

void MainWindow::openDialog()
{
    // Not the platform dialog: this one can also take a Triton cache entry, either the directory it
    // shows (a button below) or the entry's .json/.cubin, which open the whole entry (openPath).
    QFileDialog dialog(this, tr("Open Kernel"), QSettings().value(QStringLiteral("open/dir")).toString());
    dialog.setObjectName(QStringLiteral("openDialog"));
    dialog.setOption(QFileDialog::DontUseNativeDialog);
    dialog.setFileMode(QFileDialog::ExistingFile);
    dialog.setNameFilters({tr("Kernels (*.cubin *.fatbin *.cu *.ptx *.so *.o *.sassx.json)"),
                           tr("Tune databases (*.sqlite *.db)"), tr("Triton cache entries (*.json *.cubin)"),
                           tr("Session files (*.sassx.json)"), tr("All files (*)")});
    // A directory typed or double-clicked is entered, as usual; the button opens the one shown.
    auto* openDir = new QPushButton(tr("Open This Directory as a Triton Entry"), &dialog);
    openDir->setObjectName(QStringLiteral("openTritonDirectory"));
    if (auto* grid = qobject_cast<QGridLayout*>(dialog.layout()))
        grid->addWidget(openDir, grid->rowCount(), 0, 1, grid->columnCount());
    QString picked;
    connect(openDir, &QPushButton::clicked, &dialog, [&] {
        picked = dialog.directory().absolutePath();
        dialog.reject();
    });
    if (dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty())
        picked = dialog.selectedFiles().front();
    if (picked.isEmpty()) return;
    QSettings().setValue(QStringLiteral("open/dir"), QFileInfo(picked).absolutePath());
    openPath(picked);
}

QString MainWindow::kernelPickerLabel(const KernelEntry& e)
{
    // "shared_kernel(float const*, float*, int) — sm_90, 80 instructions"; the symbol after it when
    // demangling changed it, so that a name in a launch spec or a log can still be matched.
    QString label = tr("%1 — %2, %3 instructions")
                        .arg(QString::fromStdString(e.demangled), QString::fromStdString(e.arch))
                        .arg(e.instructions);
    if (e.demangled != e.name) label += QStringLiteral("  [%1]").arg(QString::fromStdString(e.name));
    return label;
}

void MainWindow::pickKernel()
{
    const std::vector<KernelEntry> entries = m_session->pendingKernelEntries();
    if (entries.empty()) return;
    QStringList labels;
    for (const KernelEntry& e : entries) {
        QString label = kernelPickerLabel(e);
        // Two cubins of one arch holding one symbol: the cubin tells them apart.
        if (labels.contains(label)) label += tr(" (cubin %1)").arg(e.cubin);
        labels << label;
    }
    QInputDialog dialog(this);
    dialog.setObjectName(QStringLiteral("kernelPicker"));
    dialog.setWindowTitle(tr("Kernel"));
    const QString file = QFileInfo(m_session->pendingInputPath()).fileName();
    dialog.setLabelText(tr("%1 holds %n kernel(s). Open:", nullptr, int(entries.size())).arg(file));
    dialog.setComboBoxItems(labels);
    dialog.setComboBoxEditable(false);
    // The newest architecture first: the copy a current GPU runs.
    dialog.setTextValue(labels[std::max(0, m_session->pendingDefaultKernelEntry())]);
    const qsizetype chosen = dialog.exec() == QDialog::Accepted ? labels.indexOf(dialog.textValue()) : -1;
    if (chosen < 0) {
        // A cancelled open changes nothing: the kernel on screen, its variants and searches stay.
        m_pendingRecent.clear();
        m_session->cancelPendingInput();
        statusBar()->showMessage(tr("Opening %1 cancelled; nothing changed").arg(file), 10000);
        return;
    }
    // The current session's changes are asked about once this kernel is analysed (replaceSession).
    m_session->selectKernel(QString::fromStdString(entries[size_t(chosen)].key));
}

void MainWindow::openSessionDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Session"), QString(),
                                                      tr("sassx sessions (*.sassx.json)"));
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::warnWithDetails(const QString& title, const QString& message)
{
    // The first line says what went wrong; a decoder's own lines, when there are any, stay behind
    // "Show Details…".
    const qsizetype nl = message.indexOf(QLatin1Char('\n'));
    QMessageBox box(QMessageBox::Warning, title, nl < 0 ? message : message.left(nl), QMessageBox::Ok, this);
    if (nl >= 0) box.setDetailedText(message.mid(nl + 1));
    box.exec();
}

bool MainWindow::saveSession(bool askPath)
{
    QString path = m_session->store()->sessionPath();
    if (askPath || path.isEmpty()) {
        path = QFileDialog::getSaveFileName(this, tr("Save Session"),
                                            QFileInfo(m_session->inputPath()).completeBaseName() +
                                                QStringLiteral(".sassx.json"),
                                            tr("sassx sessions (*.sassx.json)"));
        if (path.isEmpty()) return false;
        if (!isSessionFile(path)) path += QStringLiteral(".sassx.json");
    }
    QString error;
    if (!m_session->store()->save(path, &error)) {
        QMessageBox::warning(this, tr("Cannot save"), error);
        return false;
    }
    addRecent(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

void MainWindow::setLaunchSpecDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Launch Spec"),
                                                      QFileInfo(m_session->inputPath()).absolutePath(),
                                                      tr("Launch specs (*.launch.json);;JSON (*.json)"));
    QString error;
    if (!path.isEmpty() && !setLaunchSpec(path, &error)) {
        QMessageBox box(QMessageBox::Warning, tr("Launch spec refused"), error, QMessageBox::Ok, this);
        box.setObjectName(QStringLiteral("launchSpecRefused"));
        box.exec();
    }
}

bool MainWindow::setLaunchSpec(const QString& path, QString* error)
{
    const QString problem = launchSpecProblem(path, m_session->variantTree()->kernel().get());
    if (!problem.isEmpty()) {
        const QString kept = m_session->launchSpecPath().isEmpty()
                                 ? tr("no spec is set")
                                 : tr("%1 stays").arg(QFileInfo(m_session->launchSpecPath()).fileName());
        const QString message = tr("Launch spec refused: %1; %2").arg(problem, kept);
        statusBar()->showMessage(message, 15000);
        if (error) *error = message;
        return false;
    }
    m_session->setLaunchSpecPath(path);
    const QString name = QFileInfo(path).fileName(), symbol = m_session->kernelSymbol();
    statusBar()->showMessage(
        symbol.isEmpty() ? tr("Launch spec %1 set").arg(name)
                         : tr("Launch spec %1 set: it launches %2 with its parameters").arg(name, symbol),
        10000);
    return true;
}

void MainWindow::importStallsDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Stall Samples"), QString(),
                                                      tr("Stall samples (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!m_session->measureQueue()->importStalls(m_session->variantTree()->currentVariantId(), path, &error))
        QMessageBox::warning(this, tr("Import Stall Samples"), error);
}

QStringList MainWindow::recentFiles()
{
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::addRecent(const QString& path)
{
    QStringList files = recentFiles();
    const QString abs = QFileInfo(path).absoluteFilePath();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMaxRecent)
        files.removeLast();
    QSettings().setValue(QStringLiteral("recentFiles"), files);
    rebuildRecentMenu();
}

void MainWindow::removeRecent(const QString& path)
{
    QStringList files = recentFiles();
    if (files.removeAll(QFileInfo(path).absoluteFilePath()) == 0) return;
    QSettings().setValue(QStringLiteral("recentFiles"), files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    for (const QString& f : recentFiles())
        m_recentMenu->addAction(f, this, [this, f] { openPath(f); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

} // namespace sassx
