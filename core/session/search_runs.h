#pragma once
// The Session's searches: one search at a time (search_job.h) on the current kernel, the finished runs
// kept as records (saved with the session), their best turned into a variant, and any evaluation of a
// run reopened as a variant so the listing and the diff show it.
#include "core/session/evaluator_options.h"
#include "core/session/search_job.h"
#include "core/session/search_record.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace sassx {

class SessionStore;
class VariantTree;

class SearchRuns : public QObject
{
    Q_OBJECT
public:
    // `store` says where the session's files live (searchOutDir); both outlive this object.
    SearchRuns(VariantTree* variants, const SessionStore* store, QObject* parent = nullptr);
    ~SearchRuns() override;

    // The running (or last) search; the panel connects to it for the live stream.
    SearchJob* search() const { return m_search.get(); }
    // Empty when a search can start now, else why not (one line).
    QString searchUnavailableReason() const;
    // Starts a search of the current kernel with the session's launch spec and the session's evaluator
    // options (or `options`); outputs go to searchOutDir(config). Empty when it started, else why not.
    QString startSearch(const search::SearchConfig& config);
    QString startSearch(const search::SearchConfig& config, const EvaluatorOptions& options);
    // Continues the checkpointed run in `dir` (a killed or stopped one) on the current kernel; a budget
    // > 0 replaces the saved one. Empty when it started, else why not (one line).
    QString resumeSearch(const QString& dir, const EvaluatorOptions& options, int64_t budgetEvals = 0,
                         double budgetSeconds = 0.0);
    // searches/<date>-<algo>-<space> beside the session file (beside the autosave file before the
    // session has one; <space> is "auto" for --space auto, named before the backend picks it); never an
    // existing directory.
    QString searchOutDir(const search::SearchConfig& config) const;
    const std::vector<SearchRecord>& searches() const { return m_searches; }
    // The latest kept PPO run of this kernel whose policy (DIR/policy.pt) is still on disk, or null:
    // what the listing's policy suggestions come from.
    const SearchRecord* latestPolicyRun() const;
    // Makes evaluation `step` of kept search `record` (-1: the live or last run of search()) a variant
    // and the current one, so the listing and the diff show it; an existing variant with the same edits
    // is reused. Returns its id, or -1 with the reason in `error`.
    int openSearchEvaluation(int record, int step, QString* error = nullptr);

    // ---- for the Session ----------------------------------------------------------------------
    void setLaunchSpec(const QString& path);
    void setEvaluatorOptions(const EvaluatorOptions& options) { m_options = options; }
    // The session's evaluator options (what startSearch(config) uses; a panel's starting point).
    const EvaluatorOptions& evaluatorOptions() const { return m_options; }
    // A new kernel: a search of the old one stops (it still writes its outputs), the records go.
    void reset();
    // The records of a restored session (searchRecordsChanged).
    void replace(std::vector<SearchRecord> records);
    // The session is being saved in `dir`: the outputs of kept runs that went beside the autosave
    // (the session had no file yet) move to dir/searches, and the records follow them. A running
    // search's outputs stay where they are being written.
    void moveOutputsBeside(const QString& dir);

Q_SIGNALS:
    // The list of kept searches was replaced (a new kernel, a restored session).
    void searchRecordsChanged();
    // A finished run joined the list at `index`; `bestVariant` is the variant made of its best, or -1
    // when nothing clearly beat the original.
    void searchRecorded(int index, int bestVariant);
    void searchFailed(const QString& message);
    // Whether a search can start may have changed with it (searchUnavailableReason).
    void launchSpecChanged();
    // Something a session file keeps changed (a run was kept).
    void edited();

private:
    void finishSearch(const SearchJobResult& result);

    VariantTree* m_variants;
    const SessionStore* m_store;
    QString m_launchSpec;
    EvaluatorOptions m_options;
    std::unique_ptr<SearchJob> m_search = std::make_unique<SearchJob>();
    std::vector<SearchRecord> m_searches;
};

} // namespace sassx
