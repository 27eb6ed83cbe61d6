#pragma once
// A tune database as a dashboard (docs/user-guide.md, "Tuning a whole program"): the kernels of
// `sassx-cli tune` in a sortable table with the report's figures (the isolated speed-up and, when the
// program was timed before and after the write-back, the in-program one beside it), the program-level
// estimate line and the in-program line labelled as the report labels them, and the database's path
// and devices. Reading the database runs off the UI thread (JobTracker); Refresh, or a change of the
// file while a tune writes it (polled: a watcher on the file would miss the WAL file SQLite writes
// first), reads it again.
// Activating a kernel reads what opening it needs (cubin, spec, its run as a search record) and hands
// it on (kernelReady); the window opens it.
#include "core/session/job_tracker.h"
#include "widgets/tune_dashboard_data.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace sassx {

class TuneKernelsModel;

class TuneDashboard : public QWidget
{
    Q_OBJECT
public:
    explicit TuneDashboard(QWidget* parent = nullptr);
    ~TuneDashboard() override;

    // Reads the database at `path` in the background: loaded() and the new figures, or loadFailed()
    // with one line while what was shown stays.
    void open(const QString& path);
    void refresh(); // the shown database again
    // Reads kernel `kernel` of the shown database in the background: kernelReady() or loadFailed().
    void requestKernel(const QString& kernel);

    QString path() const { return m_data.path; }
    const TuneDashboardData& data() const { return m_data; }
    TuneKernelsModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    bool isLoading() const { return m_jobs.isRunning(); }

Q_SIGNALS:
    void loaded(const QString& path);
    void loadFailed(const QString& message);
    void kernelReady(const sassx::TuneKernelOpen& kernel);

private:
    void setData(TuneDashboardData data);
    // The database's and its WAL file's size and time: what a tune's write changes (and a read does not).
    static QString fileStamp(const QString& path);

    TuneDashboardData m_data;
    TuneKernelsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_source;      // the database and its devices
    QLabel* m_program;     // the program-level estimate
    QLabel* m_programTime; // the in-program measurement, or why there is none
    QTimer* m_poll;        // a running tune's writes read the database again
    QString m_stamp;       // fileStamp() when it was last read
    JobTracker m_jobs{this, JobTracker::Policy::Supersede};
    JobTracker m_kernelJobs{this, JobTracker::Policy::Supersede};
};

} // namespace sassx
