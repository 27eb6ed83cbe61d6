#pragma once
// The Search dock: choose an algorithm, a space, a budget, a backend and a seed; start, pause, resume
// and stop a search of the current kernel (SearchRuns::startSearch); watch it in a SearchPlot with a
// status line (evaluations, evaluations/s, best speed-up with its interval, legal moves, backend);
// reopen the plots of the session's finished runs. Clicking a point makes that evaluation a variant
// (SearchRuns::openSearchEvaluation) so the listing and the diff show it.
#include "core/common/result.h"
#include "core/session/evaluator_options.h"
#include "core/session/search_run.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace sassx {
class KernelWorkspace;
class SearchPlot;
class VariantTree;
class SearchRuns;

class SearchPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SearchPanel(VariantTree* variants, SearchRuns* searches, QWidget* parent = nullptr);

    SearchPlot* plot() const { return m_plot; }
    QComboBox* algorithmBox() const { return m_algorithm; }
    QComboBox* spaceBox() const { return m_space; }
    QComboBox* backendBox() const { return m_backend; }
    QComboBox* runsBox() const { return m_runs; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* stopButton() const { return m_stop; }
    QPushButton* continueButton() const { return m_continue; }
    QString statusText() const;
    QString messageText() const;

    // What the controls describe; the error is one line.
    Result<search::SearchConfig> config() const;
    Result<EvaluatorOptions> evaluatorOptions() const;
    // Sets the controls (algorithm, preset, space, budget, seed; backend "auto", "gpu" or "estimate").
    void setConfig(const search::SearchConfig& config);
    void setBackend(const QString& backend);

    void startSearch();
    void togglePause();
    void stopSearch();
    // Continues the checkpointed run in `dir` (one killed or stopped earlier: searches/<…> beside the
    // session) with the backend of the controls; the plot starts with the evaluations it already holds.
    void continueRun(const QString& dir);
    // Shows kept search `index` of the session, or the live run (-1).
    void showRecord(int index);
    int shownRecord() const { return m_shown; }
    // What a click on the plot does: the evaluation of the shown run becomes the current variant.
    void openEvaluation(int step);

Q_SIGNALS:
    // An evaluation was opened as variant `id` (the main window shows its diff against the original).
    void evaluationOpened(int id);

private:
    void buildControls();
    void chooseRunToContinue();
    void rebuildRuns();
    void updateButtons();
    void updateLiveStatus();
    void updateRecordStatus();
    void onEvaluation(const search::SearchEvaluation& row, const search::SearchStatus& status);
    void setMessage(const QString& text, bool error = false);
    QString backendLabel(const QString& backend, const QString& reason) const;
    eval::Backend chosenBackend() const; // the backend combo's choice

    VariantTree* m_variants;
    SearchRuns* m_searches;
    SearchPlot* m_plot;
    QComboBox* m_algorithm = nullptr;
    QComboBox* m_space = nullptr;
    QSpinBox* m_budget = nullptr;
    QComboBox* m_budgetUnit = nullptr;
    QComboBox* m_backend = nullptr;
    QLineEdit* m_gpus = nullptr;
    QSpinBox* m_seed = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_pause = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_continue = nullptr;
    QComboBox* m_runs = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_message = nullptr;
    int m_shown = -1;             // record index, -1: the live run
    bool m_announceSpace = false; // a run of the auto space started: name its space once it is chosen
    std::weak_ptr<const KernelWorkspace> m_kernelShown; // what the message is about; another kernel clears it
    // The live run's best evaluation so far (its interval goes on the status line).
    search::SpeedupFigures m_liveBest;
    search::SearchStatus m_liveStatus; // as the last live evaluation reported it
};

} // namespace sassx
