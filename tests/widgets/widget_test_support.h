#pragma once
// Shared by the widget tests: where the sample cubins are, and how to open one and wait for its
// analysis (the session works in the background).
#include "core/session/session.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QString>
#include <QTest>

namespace sassx::test {

inline QString sampleCubin(const QString& name)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1.sm_90.cubin").arg(name);
}

inline QString sampleSpec(const QString& name)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1.launch.json").arg(name);
}

// Opens `path` and waits for analysisReady (true) or a failure (false, with the message in *error).
inline bool openAndWait(Session& session, const QString& path, QString* error = nullptr,
                        int timeoutMs = 120000)
{
    QSignalSpy ready(&session, &Session::analysisReady);
    QSignalSpy loadFailed(&session, &Session::loadFailed);
    QSignalSpy analysisFailed(&session, &Session::analysisFailed);
    session.openInput(path);
    (void)QTest::qWaitFor(
        [&] { return !ready.isEmpty() || !loadFailed.isEmpty() || !analysisFailed.isEmpty(); }, timeoutMs);
    if (!ready.isEmpty()) return true;
    if (error && loadFailed.isEmpty() && analysisFailed.isEmpty())
        *error = QStringLiteral("timed out");
    else if (error)
        *error = !loadFailed.isEmpty() ? loadFailed.front().front().toString()
                                       : analysisFailed.front().front().toString();
    return false;
}

} // namespace sassx::test

// QSKIP when the sample cubins were not built (no nvcc on this machine).
#define SASSX_REQUIRE_SAMPLE(path)                                                                           \
    do {                                                                                                     \
        if (!QFileInfo::exists(path))                                                                        \
            QSKIP(qPrintable(QStringLiteral("sample %1 not built (build target sassx_samples)").arg(path))); \
    } while (0)
