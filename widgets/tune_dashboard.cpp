#include "widgets/tune_dashboard.h"

#include "widgets/models/tune_kernels_model.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <utility>

namespace sassx {

TuneDashboard::TuneDashboard(QWidget* parent)
    : QWidget(parent), m_model(new TuneKernelsModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_source(new QLabel(this)), m_program(new QLabel(this)),
      m_programTime(new QLabel(this)), m_poll(new QTimer(this))
{
    setObjectName(QStringLiteral("tuneDashboard"));
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_source->setObjectName(QStringLiteral("tuneSource"));
    m_source->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_source->setWordWrap(true);
    auto* refreshButton = new QPushButton(tr("Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("tuneRefresh"));
    refreshButton->setToolTip(
        tr("Read the database again (it is also read again when a running tune writes it)"));
    top->addWidget(m_source, 1);
    top->addWidget(refreshButton);
    layout->addLayout(top);
    // The figure the report calls an estimate is shown with the report's own words (tune_report.h).
    m_program->setObjectName(QStringLiteral("tuneProgramLine"));
    m_program->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_program->setWordWrap(true);
    layout->addWidget(m_program);
    m_programTime->setObjectName(QStringLiteral("tuneProgramTime"));
    m_programTime->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_programTime->setWordWrap(true);
    layout->addWidget(m_programTime);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TuneKernelsModel::SortRole);
    m_view->setObjectName(QStringLiteral("tuneKernels"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(TuneKernelsModel::ShareColumn, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setToolTip(tr("Double-click (or Enter) opens the kernel with its search and the best's diff"));
    layout->addWidget(m_view, 1);

    connect(refreshButton, &QPushButton::clicked, this, &TuneDashboard::refresh);
    connect(m_view, &QTableView::activated, this, [this](const QModelIndex& index) {
        requestKernel(index.data(TuneKernelsModel::KernelRole).toString());
    });
    m_poll->setInterval(1000);
    connect(m_poll, &QTimer::timeout, this, [this] {
        if (!m_jobs.isRunning() && fileStamp(m_data.path) != m_stamp) refresh();
    });
}

TuneDashboard::~TuneDashboard() = default;

void TuneDashboard::open(const QString& path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    // The stamp is taken before the read: a write while it reads is seen by the next poll.
    m_jobs.start([abs](const JobControl&) { return std::make_pair(fileStamp(abs), loadTuneDashboard(abs)); },
                 [this, abs](std::pair<QString, Result<TuneDashboardData>> read) {
                     auto& [stamp, data] = read;
                     if (abs == m_data.path) m_stamp = stamp; // a failed re-read is not retried every poll
                     if (!data) {
                         Q_EMIT loadFailed(QString::fromStdString(data.message()));
                         return;
                     }
                     setData(std::move(*data));
                     m_stamp = stamp;
                     Q_EMIT loaded(abs);
                 });
}

void TuneDashboard::refresh()
{
    if (!m_data.path.isEmpty()) open(m_data.path);
}

void TuneDashboard::requestKernel(const QString& kernel)
{
    if (m_data.path.isEmpty() || kernel.isEmpty()) return;
    const QString db = m_data.path;
    m_kernelJobs.start([db, kernel](const JobControl&) { return loadTuneKernel(db, kernel); },
                       [this](Result<TuneKernelOpen> k) {
                           if (!k)
                               Q_EMIT loadFailed(QString::fromStdString(k.message()));
                           else
                               Q_EMIT kernelReady(*k);
                       });
}

void TuneDashboard::setData(TuneDashboardData data)
{
    const bool same = data.path == m_data.path;
    // The selected kernel stays selected across a refresh.
    const QModelIndex selected = m_view->currentIndex();
    const QString kernel =
        selected.isValid() ? selected.data(TuneKernelsModel::KernelRole).toString() : QString();
    m_data = std::move(data);
    m_model->setRows(m_data.rows);
    m_source->setText(
        tr("%1 — %n kernel(s); %2; devices: %3", nullptr, int(m_data.rows.size()))
            .arg(QDir::toNativeSeparators(m_data.path), m_data.sharesNote,
                 m_data.devices.isEmpty() ? tr("none yet") : m_data.devices.join(QStringLiteral(", "))));
    m_program->setText(m_data.programLine);
    m_programTime->setText(m_data.programTimeLine);
    m_view->resizeColumnsToContents();
    if (same && !kernel.isEmpty())
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            if (m_proxy->index(r, 0).data(TuneKernelsModel::KernelRole).toString() == kernel)
                m_view->setCurrentIndex(m_proxy->index(r, 0));
    m_poll->start();
}

QString TuneDashboard::fileStamp(const QString& path)
{
    QString stamp;
    for (const QString& f : {path, path + QStringLiteral("-wal")}) {
        const QFileInfo info(f);
        stamp += info.exists()
                     ? QStringLiteral("%1@%2;").arg(info.size()).arg(info.lastModified().toMSecsSinceEpoch())
                     : QStringLiteral("-;");
    }
    return stamp;
}

} // namespace sassx
