// MainWindow's tune dashboard (docs/user-guide.md, "Tuning a whole program"): the Tune dock, a tune
// database opened in it, and a kernel of it opened in the explorer with its run in the Search dock and
// the run's best against the original in the diff.
#include "widgets/main_window.h"

#include "core/session/session.h"
#include "widgets/diff_view.h"
#include "widgets/search_panel.h"
#include "widgets/tune_dashboard.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>

namespace sassx {

void MainWindow::createTuneDock()
{
    m_tune = new TuneDashboard(this);
    auto* dock = new QDockWidget(tr("Tune"), this);
    dock->setObjectName(QStringLiteral("tuneDock"));
    dock->setWidget(dockContent(m_tune));
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    // With Diff and Search as tabs: a kernel opened from the table shows there, one tab away.
    if (auto* diffDock = findChild<QDockWidget*>(QStringLiteral("diffDock")))
        tabifyDockWidget(diffDock, dock);
    dock->hide();
    connect(m_tune, &TuneDashboard::loaded, this, [this, dock](const QString& path) {
        dock->show();
        dock->raise();
        statusBar()->showMessage(tr("Tune database %1: %n kernel(s); double-click one to open it", nullptr,
                                    int(m_tune->data().rows.size()))
                                     .arg(QFileInfo(path).fileName()),
                                 10000);
    });
    // One line, and nothing already open is touched (the dashboard keeps what it showed).
    connect(m_tune, &TuneDashboard::loadFailed, this,
            [this](const QString& m) { statusBar()->showMessage(tr("Cannot open: %1").arg(m)); });
    connect(m_tune, &TuneDashboard::kernelReady, this, &MainWindow::openTuneKernel);
    connect(m_session, &Session::analysisReady, this, &MainWindow::showTuneKernel);
    connect(m_session, &Session::loadFailed, this, [this] { m_pendingTune.reset(); });
    connect(m_session, &Session::analysisFailed, this, [this] { m_pendingTune.reset(); });
}

void MainWindow::openTuneDatabase(const QString& path)
{
    addRecent(path);
    m_tune->open(path);
}

void MainWindow::openTuneKernel(const TuneKernelOpen& kernel)
{
    // Unsaved changes are asked about once the kernel has opened (MainWindow::replaceSession).
    m_pendingTune = std::make_unique<TuneKernelOpen>(kernel);
    m_pendingRecent.clear();
    statusBar()->showMessage(tr("Opening %1 from the tune database").arg(kernel.kernel), 10000);
    m_session->openInput(kernel.cubin, m_session->arch(), kernel.symbol);
}

void MainWindow::showTuneKernel()
{
    if (!m_pendingTune || m_session->kernelName() != m_pendingTune->symbol) return;
    const std::unique_ptr<TuneKernelOpen> k = std::move(m_pendingTune);
    // The run's spec, as a session file's would be restored: not a change of the user's.
    m_session->restoreLaunchSpecPath(k->spec);
    if (!k->record) {
        statusBar()->showMessage(tr("%1 has no run in the tune database yet").arg(k->kernel), 10000);
        return;
    }
    const int step = k->record->bestStep();
    m_session->searchRuns()->replace({*k->record});
    showSearch();
    if (step < 0) {
        statusBar()->showMessage(tr("%1: nothing beat the original in its run").arg(k->kernel), 10000);
        return;
    }
    QString error;
    const int id = m_session->searchRuns()->openSearchEvaluation(0, step, &error);
    if (id < 0) {
        statusBar()->showMessage(tr("Cannot open the best of %1: %2").arg(k->kernel, error));
        return;
    }
    showDiff(0, id);
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("diffDock"))) {
        dock->show();
        dock->raise();
    }
    statusBar()->showMessage(
        tr("%1: its run in the Search tab, its best against the original in the Diff").arg(k->kernel), 10000);
}

} // namespace sassx
