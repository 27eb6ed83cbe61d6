// File ▸ Set Launch Spec… checks the spec when it is set: a file that is not JSON, that launches another
// kernel, passes another number of parameters, a parameter of another size or a grid of four numbers is
// refused in one line naming the problem, and the spec in use stays (so a session saved afterwards keeps
// it and is not modified). The sample's own spec is accepted. In two font families at two window sizes.
#include "core/session/session.h"
#include "core/session/session_store.h"
#include "main_window_support.h"
#include "widget_test_support.h"
#include "widgets/main_window.h"

#include <QApplication>
#include <QFile>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace sassx;
using sassx::test::newWindow;

namespace {

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString writeSpec(const QTemporaryDir& dir, const QString& name, const QString& text)
{
    const QString path = dir.filePath(name + QStringLiteral(".launch.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(text.toUtf8());
    return path;
}

} // namespace

class TestLaunchSpecCheck : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setApplicationName(QStringLiteral("sassx-tests-launch-spec-check"));
        QSettings().clear();
    }

    void brokenSpecsAreRefused_data() { test::addFontAndSizeRows(); }

    void brokenSpecsAreRefused()
    {
        QFETCH(QFont, font);
        QFETCH(QSize, size);
        QApplication::setFont(font);
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        const QString good = test::sampleSpec(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(good);
        const QString original = readAll(good);
        QVERIFY(original.contains(QLatin1String("\"eps\"")));

        QTemporaryDir dir;
        struct Broken
        {
            QString name, text, says;
        };
        QString otherKernel = original;
        otherKernel.replace(QLatin1String("\"kernel\": \"rmsnorm\""),
                            QLatin1String("\"kernel\": \"attn_fwd\""));
        QString fewer = original;
        fewer.remove(QRegularExpression(QStringLiteral(",\\s*\\{\"name\": \"eps\"[^}]*\\}")));
        QString wider = original;
        wider.replace(QLatin1String("\"dtype\": \"f32\", \"value\": 1e-05"),
                      QLatin1String("\"dtype\": \"f64\", \"value\": 1e-05"));
        QString fourDims = original;
        fourDims.replace(QLatin1String("\"grid\": [8192, 1, 1]"), QLatin1String("\"grid\": [8192, 1, 1, 1]"));
        const std::vector<Broken> broken = {
            {QStringLiteral("truncated"), QStringLiteral("{\"kernel\": \"rmsnorm\", \"grid\": [1,1"), {}},
            {QStringLiteral("other_kernel"), otherKernel, QStringLiteral("attn_fwd")},
            {QStringLiteral("fewer_params"), fewer, {}},
            {QStringLiteral("wider_param"), wider, QStringLiteral("eps")},
            {QStringLiteral("four_dims"), fourDims, QStringLiteral("grid")},
        };
        for (const Broken& b : broken) // each edit above found its text
            QVERIFY2(b.text != original, qPrintable(b.name));

        const auto window = newWindow();
        window->resize(size);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        Session* session = window->session();
        QVERIFY(test::openAndWait(*session, cubin));
        QCOMPARE(QFileInfo(session->launchSpecPath()).fileName(), QFileInfo(good).fileName());
        QVERIFY(!session->store()->isModified());

        for (const Broken& b : broken) {
            const QString path = writeSpec(dir, b.name, b.text);
            QVERIFY(!path.isEmpty());
            QString error;
            QVERIFY2(!window->setLaunchSpec(path, &error),
                     qPrintable(b.name + QStringLiteral(" was accepted")));
            qInfo("%s: %s", qPrintable(b.name), qPrintable(error));
            QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
            QVERIFY(error.contains(QFileInfo(path).fileName()));
            if (!b.says.isEmpty()) QVERIFY2(error.contains(b.says), qPrintable(error));
            QCOMPARE(window->statusBar()->currentMessage(), error);
            // The spec in use stays, and nothing was changed that a session file would keep.
            QCOMPARE(QFileInfo(session->launchSpecPath()).fileName(), QFileInfo(good).fileName());
            QVERIFY(!session->store()->isModified());
        }

        // A good spec is taken: a copy of the sample's own.
        const QString copy = writeSpec(dir, QStringLiteral("copy"), original);
        QString error;
        QVERIFY2(window->setLaunchSpec(copy, &error), qPrintable(error));
        QCOMPARE(session->launchSpecPath(), copy);
        QVERIFY(session->store()->isModified());
    }
};

QTEST_MAIN(TestLaunchSpecCheck)
#include "test_launch_spec_check.moc"
