#pragma once
// The Session's files: saving, reopening a session file (its variants and searches return once the
// kernel's analysis is ready), the autosave of a session with unsaved changes, and the "modified"
// state that the window title and the close dialog show. The format is session_file.h's.
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>

namespace sassx {

class Session;

class SessionStore : public QObject
{
    Q_OBJECT
public:
    // Saves and restores what `session` and its parts hold; `session` outlives this object.
    explicit SessionStore(Session* session, QObject* parent = nullptr);
    ~SessionStore() override;

    QString sessionPath() const { return m_sessionPath; }
    bool save(const QString& path, QString* error = nullptr);
    // Reads a session file and reopens its input; the variants return once the analysis is ready
    // (sessionRestored). Returns false with `error` when the file cannot be read.
    bool openSession(const QString& path, QString* error = nullptr);
    // Reopens what autosave wrote for a session that had no file of its own (autosavePath()). The
    // restored session is still unsaved: it has no file, and it stays modified until saved somewhere.
    bool restoreAutosave(QString* error = nullptr);
    // An autosave worth offering at start: it exists, reads as a session, and names an input that exists.
    static bool autosaveAvailable(QString* input = nullptr);
    bool isModified() const { return m_modified; }
    void setAutosaveInterval(int ms);
    // Where autosave writes when the session has no file of its own yet.
    static QString autosavePath();

    // ---- for the Session ----------------------------------------------------------------------
    void markModified();
    // A session file is being reopened (its input and kernel are loading).
    bool isRestoring() const { return m_pending != nullptr; }
    // A new input or kernel starts a new session: no file of its own, nothing unsaved. The autosave of
    // the never-saved session it replaces goes with it.
    void forgetFile();
    // The input or analysis of the file being reopened failed.
    void dropRestore();
    // The file's kernel is open: its variants, searches and selection return (sessionRestored).
    void applyRestore();

Q_SIGNALS:
    void sessionRestored();
    void sessionRestoreFailed(const QString& message);
    void modifiedChanged(bool modified);
    void saved(const QString& path);

private:
    struct Pending;
    void clearModified();
    void autosave();
    void dropReplacedAutosave();

    Session* m_session;
    QString m_sessionPath;
    std::unique_ptr<Pending> m_pending;
    bool m_modified = false;
    QTimer m_autosave;
};

} // namespace sassx
