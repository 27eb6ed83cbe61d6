#pragma once
// Shared by the widget tests: where the sample cubins are, and how to open one and wait for its
// analysis (the session works in the background).
#include "core/session/session.h"

#include <QFileInfo>
#include <QFont>
#include <QFontDatabase>
#include <QFontInfo>
#include <QList>
#include <QSignalSpy>
#include <QSize>
#include <QString>
#include <QTest>

#include <utility>

namespace sassx::test {

inline QString sampleCubin(const QString& name)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1.sm_90.cubin").arg(name);
}

inline QString sampleSpec(const QString& name)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1.launch.json").arg(name);
}

// The multi-kernel sample (samples/multi_kernel): three kernels in one cubin, the launch spec (for
// trio_square_add) beside it.
inline QString multiKernelSample()
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/multi_kernel/elementwise_trio.sm_90.cubin");
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

// Two fonts of different families for tests whose layout must hold for any font: the system's general
// font and its fixed font, or another installed family when those two are one (the same family twice
// only where a single one is installed).
inline std::pair<QFont, QFont> twoFontFamilies()
{
    const QFont general = QFontDatabase::systemFont(QFontDatabase::GeneralFont);
    QFont other = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (const QString& family : QFontDatabase::families())
        if (QFontInfo(other).family() == QFontInfo(general).family() &&
            QFontInfo(QFont(family)).family() != QFontInfo(general).family())
            other = QFont(family);
    return {general, other};
}

// A data-driven test's rows: a "font" column with the two families of twoFontFamilies().
inline void addTwoFontRows()
{
    QTest::addColumn<QFont>("font");
    const auto [general, other] = twoFontFamilies();
    QTest::newRow("general font") << general;
    QTest::newRow("second family") << other;
}

// The two window sizes a layout must hold at: a small laptop's and a full-HD screen's.
inline QList<QSize> twoWindowSizes()
{
    return {QSize(1024, 700), QSize(1920, 1080)};
}

// A data-driven test's rows: "font" (the two families of twoFontFamilies()) × "size" (twoWindowSizes()).
inline void addFontAndSizeRows()
{
    QTest::addColumn<QFont>("font");
    QTest::addColumn<QSize>("size");
    const auto [general, other] = twoFontFamilies();
    for (const QSize size : twoWindowSizes()) {
        const QString at = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        QTest::newRow(qPrintable(QStringLiteral("general font, ") + at)) << general << size;
        QTest::newRow(qPrintable(QStringLiteral("second family, ") + at)) << other << size;
    }
}

} // namespace sassx::test

// QSKIP when the sample cubins were not built (no nvcc on this machine).
#define SASSX_REQUIRE_SAMPLE(path)                                                                           \
    do {                                                                                                     \
        if (!QFileInfo::exists(path))                                                                        \
            QSKIP(qPrintable(QStringLiteral("sample %1 not built (build target sassx_samples)").arg(path))); \
    } while (0)
