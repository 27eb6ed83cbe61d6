#include "core/session/session_store.h"

#include "core/session/search_runs.h"
#include "core/session/session.h"
#include "core/session/session_file.h"
#include "core/session/variant_tree.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QStringList>

#include <algorithm>

namespace sassx {

struct SessionStore::Pending
{
    SessionFile file;
    QString path;              // the session's own file once restored; empty for an autosave
    bool fromAutosave = false; // a restored autosave stays modified until saved somewhere
};

namespace {

SessionFile snapshot(const Session& s)
{
    SessionFile f;
    f.input = s.inputPath().toStdString();
    f.arch = s.arch().toStdString();
    f.kernel = s.kernelName().toStdString();
    f.launchSpec = s.launchSpecPath().toStdString();
    f.currentVariant = s.variantTree()->currentVariantId();
    f.selected = s.variantTree()->selectedInstruction();
    f.variants = s.variantTree()->variants();
    f.searches = s.searchRuns()->searches();
    f.sourceFolders = s.sourceFolders();
    return f;
}

} // namespace

SessionStore::SessionStore(Session* session, QObject* parent) : QObject(parent), m_session(session)
{
    m_autosave.setSingleShot(true);
    m_autosave.setInterval(3000);
    connect(&m_autosave, &QTimer::timeout, this, &SessionStore::autosave);
}

SessionStore::~SessionStore() = default;

bool SessionStore::save(const QString& path, QString* error)
{
    if (m_session->inputPath().isEmpty()) {
        if (error) *error = tr("nothing to save: no input is open");
        return false;
    }
    // Runs made before the session had a file wrote beside the autosave: they go beside the session.
    m_session->searchRuns()->moveOutputsBeside(QFileInfo(path).absolutePath());
    auto st = writeSessionFile(path.toStdString(), snapshot(*m_session));
    if (!st) {
        if (error) *error = QString::fromStdString(st.message());
        return false;
    }
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    m_autosave.stop();
    if (m_modified) {
        m_modified = false;
        Q_EMIT modifiedChanged(false);
    }
    Q_EMIT saved(m_sessionPath);
    return true;
}

bool SessionStore::openSession(const QString& path, QString* error)
{
    auto file = readSessionFile(path.toStdString());
    if (!file) {
        if (error) *error = QString::fromStdString(file.message());
        return false;
    }
    // Nothing of the file is applied until its kernel is open (applyRestore): a restore that fails
    // leaves the current session, its file and its launch spec as they were.
    m_pending = std::make_unique<Pending>(Pending{std::move(*file), QFileInfo(path).absoluteFilePath()});
    const SessionFile& f = m_pending->file;
    m_session->openInput(QString::fromStdString(f.input), QString::fromStdString(f.arch),
                         QString::fromStdString(f.kernel));
    return true;
}

bool SessionStore::restoreAutosave(QString* error)
{
    if (!openSession(autosavePath(), error)) return false;
    // The autosave file is a copy, not the session's own file: saving asks where, as for any new session.
    m_pending->path.clear();
    m_pending->fromAutosave = true;
    return true;
}

bool SessionStore::autosaveAvailable(QString* input)
{
    const QString path = autosavePath();
    if (!QFileInfo::exists(path)) return false;
    auto file = readSessionFile(path.toStdString());
    if (!file || file->input.empty() || !QFileInfo::exists(QString::fromStdString(file->input))) return false;
    if (input) *input = QString::fromStdString(file->input);
    return true;
}

void SessionStore::forgetFile()
{
    dropReplacedAutosave();
    m_sessionPath.clear();
    clearModified();
}

void SessionStore::dropRestore()
{
    m_pending.reset();
}

void SessionStore::applyRestore()
{
    std::unique_ptr<Pending> pending = std::move(m_pending);
    if (!pending->fromAutosave) dropReplacedAutosave();
    m_sessionPath = pending->path;
    VariantTree* tree = m_session->variantTree();
    const auto kernel = tree->kernel();
    QStringList problems;
    std::vector<VariantRecord> variants;
    for (const VariantRecord& r : pending->file.variants) {
        if (r.parent < 0 && r.id != 0) continue; // only one original
        if (!r.edits.empty()) {
            auto s = kernel->schedule(r.edits);
            if (!s) problems << QString::fromStdString(r.name + ": " + s.message());
        }
        variants.push_back(r);
    }
    std::sort(variants.begin(), variants.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    if (variants.empty() || variants.front().id != 0) {
        VariantRecord original;
        original.name = "original";
        variants.insert(variants.begin(), original);
    }
    tree->replace(std::move(variants), pending->file.currentVariant);
    const QString spec = QString::fromStdString(pending->file.launchSpec);
    m_session->restoreLaunchSpecPath(spec.isEmpty() ? m_session->defaultLaunchSpecPath() : spec);
    m_session->restoreSourceFolders(pending->file.sourceFolders);
    m_session->searchRuns()->replace(pending->file.searches);
    tree->announceReset(false);
    tree->setSelectedInstruction(pending->file.selected);
    // A restored autosave has no file yet: it stays modified until the user saves it somewhere.
    m_modified = pending->fromAutosave;
    Q_EMIT modifiedChanged(m_modified);
    QStringList messages;
    if (!problems.isEmpty())
        messages << tr("Some variants no longer apply to this kernel:\n%1").arg(problems.join('\n'));
    for (const std::string& note : pending->file.notes)
        messages << QString::fromStdString(note);
    if (!messages.isEmpty()) Q_EMIT sessionRestoreFailed(messages.join('\n'));
    Q_EMIT sessionRestored();
}

void SessionStore::dropReplacedAutosave()
{
    // The autosave holds the never-saved session that is being replaced; the user was asked about its
    // changes before (and discarded them), so it goes now, and not before: an open that fails keeps
    // both the session on screen and its autosave.
    if (m_modified && m_sessionPath.isEmpty() && !m_session->inputPath().isEmpty())
        QFile::remove(autosavePath());
}

void SessionStore::clearModified()
{
    m_autosave.stop();
    if (!m_modified) return;
    m_modified = false;
    Q_EMIT modifiedChanged(false);
}

void SessionStore::markModified()
{
    if (!m_modified) {
        m_modified = true;
        Q_EMIT modifiedChanged(true);
    }
    if (m_autosave.interval() > 0) m_autosave.start();
}

void SessionStore::setAutosaveInterval(int ms)
{
    m_autosave.setInterval(ms);
    if (ms <= 0) m_autosave.stop();
}

QString SessionStore::autosavePath()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    return QDir(dir).filePath(QStringLiteral("autosave.sassx.json"));
}

void SessionStore::autosave()
{
    if (m_session->inputPath().isEmpty() || !m_modified) return;
    // Autosave never changes which file the session belongs to, and does not clear "modified" unless
    // it wrote that very file.
    if (!m_sessionPath.isEmpty()) {
        save(m_sessionPath);
    } else {
        (void)writeSessionFile(autosavePath().toStdString(), snapshot(*m_session));
    }
}

} // namespace sassx
