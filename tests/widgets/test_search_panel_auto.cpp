// The Search dock starts from `sassx-cli search`'s default space, auto: offered first and selected, it
// describes a configuration that the run resolves once its backend is chosen (mem under the estimate),
// and the record and the message name the space used beside the request.
#include "core/session/search_runs.h"
#include "core/session/session.h"
#include "widget_test_support.h"
#include "widgets/search_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

using namespace sassx;

class TestSearchPanelAuto : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void autoIsTheDefault_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("space"); // before the run knows whether a GPU answers
        QTest::newRow("auto backend") << "auto"
                                      << "all+control";
        QTest::newRow("gpu") << "gpu"
                             << "all+control";
        QTest::newRow("estimate") << "estimate"
                                  << "mem";
    }
    void autoIsTheDefault()
    {
        QFETCH(QString, backend);
        QFETCH(QString, space);
        Session session;
        SearchPanel panel(session.variantTree(), session.searchRuns());
        QCOMPARE(panel.spaceBox()->currentData().toString(), QStringLiteral("auto"));
        QCOMPARE(panel.spaceBox()->itemData(0).toString(), QStringLiteral("auto"));
        panel.setBackend(backend);
        auto c = panel.config();
        QVERIFY2(c, c ? "" : c.message().c_str());
        QVERIFY(c->autoSpace == search::AutoSpace::Search);
        QCOMPARE(QString::fromStdString(search::spaceName(c->space)), space);
        QCOMPARE(c->algorithm, search::Algorithm::Climb);
        // The controls show what they describe, auto included.
        panel.setConfig(*c);
        QCOMPARE(panel.spaceBox()->currentData().toString(), QStringLiteral("auto"));
        auto back = panel.config();
        QVERIFY(back && search::toJson(*back) == search::toJson(*c));
    }

    // A run of the default space under the estimate searches mem, and says so.
    void autoRunResolvesWithItsBackend()
    {
        const QString cubin = test::sampleCubin(QStringLiteral("rmsnorm"));
        SASSX_REQUIRE_SAMPLE(cubin);
        SASSX_REQUIRE_SAMPLE(test::sampleSpec(QStringLiteral("rmsnorm")));
        QTemporaryDir dir;
        Session session;
        session.store()->setAutosaveInterval(0);
        QVERIFY(test::openAndWait(session, cubin));
        QVERIFY(session.store()->save(dir.filePath(QStringLiteral("s.sassx.json"))));
        SearchPanel panel(session.variantTree(), session.searchRuns());
        panel.setBackend(QStringLiteral("estimate"));
        auto c = panel.config();
        QVERIFY(c);
        c->budgetEvals = 40;
        c->budgetSeconds = 0;
        panel.setConfig(*c);
        QSignalSpy recorded(session.searchRuns(), &SearchRuns::searchRecorded);
        QSignalSpy failed(session.searchRuns()->search(), &SearchJob::failed);
        QString atStart; // the message once the evaluator is chosen (after the panel's own slot)
        connect(session.searchRuns()->search(), &SearchJob::started, &panel,
                [&] { atStart = panel.messageText(); });
        panel.startButton()->click();
        QVERIFY2(session.searchRuns()->search()->isRunning(), qPrintable(panel.messageText()));
        QVERIFY2(panel.messageText().contains(QStringLiteral("auto picks")), qPrintable(panel.messageText()));
        // Named before the evaluator is chosen ("-climb-auto"), renamed once auto has picked the space.
        const QString first = session.searchRuns()->search()->outDir();
        QVERIFY2(first.endsWith(QStringLiteral("-climb-auto")) ||
                     first.endsWith(QStringLiteral("-climb-mem")),
                 qPrintable(first));
        (void)QTest::qWaitFor([&] { return !recorded.isEmpty() || !failed.isEmpty(); }, 120000);
        QVERIFY2(!recorded.isEmpty(),
                 failed.isEmpty() ? "timed out" : qPrintable(failed.front().front().toString()));
        QVERIFY2(atStart.contains(QStringLiteral("climb in mem (auto)")), qPrintable(atStart));
        const SearchRecord& r = session.searchRuns()->searches().front();
        QCOMPARE(r.config.space, search::SearchSpace::Mem);
        QCOMPARE(r.config.spaceRequested(), std::string("auto"));
        QCOMPARE(r.report.at("space").value("used", std::string()), std::string("mem"));
        QCOMPARE(QString::fromStdString(r.label()), QStringLiteral("climb\u00b7mem"));
        QCOMPARE(session.searchRuns()->search()->config().space, search::SearchSpace::Mem);
        // The folder says the space the search ran in, not the one asked for.
        const QString out = QString::fromStdString(r.outDir);
        QVERIFY2(out.endsWith(QStringLiteral("-climb-mem")), qPrintable(out));
        QVERIFY(QFileInfo(out + QStringLiteral("/report.json")).exists());
        QVERIFY(!QFileInfo::exists(out.left(out.size() - 4) + QStringLiteral("-auto")));
        QCOMPARE(session.searchRuns()->search()->outDir(), out);
    }
};

QTEST_MAIN(TestSearchPanelAuto)
#include "test_search_panel_auto.moc"
