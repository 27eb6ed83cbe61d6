#pragma once
// The explorer's window: wires the panels to one Session and one undo stack, and owns the menus and
// the open/save dialogs. Panels do the work; this class only connects them.
#include <QMainWindow>

#include <memory>

class QAction;
class QLabel;
class QMenu;
class QUndoStack;

namespace sassx {
struct KernelEntry;
class DiffView;
class EditController;
class ListingPanel;
class MetricsView;
class SearchPanel;
class StallsPanel;
class Session;
class TuneDashboard;
struct TuneKernelOpen;
class VariantsPanel;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(Session* session = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    // A cubin/fatbin/executable/.cu/.ptx/Triton cache directory (or its .json/.cubin), a session
    // file (*.sassx.json), or a tune database (a SQLite file; opens the Tune dashboard).
    void openPath(const QString& path);

    Session* session() const { return m_session; }
    QUndoStack* undoStack() const { return m_undoStack; }
    EditController* editController() const { return m_controller; }
    ListingPanel* listingPanel() const { return m_listing; }
    VariantsPanel* variantsPanel() const { return m_variants; }
    MetricsView* metricsView() const { return m_metrics; }
    DiffView* diffView() const { return m_diff; }
    SearchPanel* searchPanel() const { return m_search; }
    StallsPanel* stallsPanel() const { return m_stalls; }
    TuneDashboard* tuneDashboard() const { return m_tune; }
    // File ▸ Set Launch Spec… without the dialog: the spec is checked against the open kernel
    // (launch_spec_check.h) and used from now on, or refused with the one-line reason in *error (also in
    // the status bar) and the spec in use kept.
    bool setLaunchSpec(const QString& path, QString* error = nullptr);
    // Shows and raises the Search dock.
    void showSearch();
    // Before the session is replaced (another file or kernel, once it has opened) or the window closes: a
    // modified session is saved (to its file, or one the user picks), discarded, or the action cancelled.
    // True: go on. `replacement` names the file that would replace it.
    bool maybeSaveChanges(const QString& replacement = {});
    // At start without a file: offers to restore the autosave of a session that was never saved.
    void offerAutosave();

    static QStringList recentFiles();
    // How the kernel picker shows a kernel: demangled name, arch, size (and the symbol).
    static QString kernelPickerLabel(const KernelEntry& entry);
    // View ▸ Reset Layout: docks, panel widths and listing columns back to their defaults; the saved
    // layout is forgotten.
    void resetLayout();

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // A dock's panel as the dock holds it: in a scroll area, so that no dock is ever drawn over another.
    static QWidget* dockContent(QWidget* content);
    void createActions();
    void openDialog();
    void openSessionDialog();
    void warnWithDetails(const QString& title, const QString& message);
    bool saveSession(bool askPath);
    void setLaunchSpecDialog();
    void goToAddressDialog();
    void importStallsDialog();
    void addRecent(const QString& path);
    void removeRecent(const QString& path);
    void rebuildRecentMenu();
    void pickKernel();
    // The session's replace check: an opened kernel is about to replace the session on screen.
    bool replaceSession();
    void updateTitle();
    void showDiff(int left, int right);
    void applyDefaultLayout();
    // main_window_tune.cpp: the Tune dock, a database opened in it, a kernel of it opened here.
    void createTuneDock();
    void openTuneDatabase(const QString& path);
    void openTuneKernel(const TuneKernelOpen& kernel);
    void showTuneKernel();

    Session* m_session;
    QUndoStack* m_undoStack;
    EditController* m_controller;
    ListingPanel* m_listing;
    VariantsPanel* m_variants;
    MetricsView* m_metrics;
    DiffView* m_diff;
    SearchPanel* m_search;
    StallsPanel* m_stalls;
    TuneDashboard* m_tune = nullptr;
    std::unique_ptr<TuneKernelOpen> m_pendingTune; // opened from the dashboard, shown once analysed
    QMenu* m_recentMenu = nullptr;
    QLabel* m_busyLabel = nullptr;
    QByteArray m_defaultState;     // dock arrangement before any saved layout was restored
    bool m_layoutRestored = false; // a saved dock arrangement was restored at start
    bool m_shownOnce = false;
    QString m_pendingRecent; // joins Open Recent once it has loaded; a failure drops it from the list
};

} // namespace sassx
