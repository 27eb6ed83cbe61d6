// The GUI's session and the CLI are two faces of one workspace: for every sample kernel, the moves the
// session offers are exactly the moves `sassx-cli legal --all --json` lists.
#include "core/session/session.h"

#include "../sass/test_common.h"

#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <set>

using namespace sassx;

class TestSessionParity : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sessionMovesEqualCli_data()
    {
        QTest::addColumn<QString>("cubin");
        for (const QString& c : sampleCubins())
            QTest::newRow(qPrintable(QFileInfo(c).fileName())) << c;
    }
    void sessionMovesEqualCli()
    {
        QFETCH(QString, cubin);
        Session session;
        session.store()->setAutosaveInterval(0);
        QSignalSpy ready(&session, &Session::analysisReady);
        QSignalSpy failed(&session, &Session::analysisFailed);
        QSignalSpy loadFailed(&session, &Session::loadFailed);
        session.openInput(cubin);
        QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || !failed.isEmpty() || !loadFailed.isEmpty(), 300000);
        QVERIFY2(!ready.isEmpty(), "the session could not analyse the sample");
        std::set<std::pair<Position, Position>> gui;
        for (const auto& m :
             session.variantTree()->checker()->legalMoves(session.variantTree()->schedule(), false))
            gui.insert(m);

        QProcess cli;
        cli.start(QStringLiteral(SASSX_CLI),
                  {QStringLiteral("legal"), cubin, QStringLiteral("--kernel"), session.kernelName(),
                   QStringLiteral("--all"), QStringLiteral("--json")});
        QVERIFY(cli.waitForFinished(300000));
        QCOMPARE(cli.exitCode(), 0);
        const auto j = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
        std::set<std::pair<Position, Position>> listed;
        for (const auto& m : j.at("moves"))
            listed.emplace(m.at("from").get<Position>(), m.at("to").get<Position>());
        QCOMPARE(listed.size(), gui.size());
        QVERIFY(listed == gui);
        // And the notices the listing header shows are the ones the CLI reports.
        QStringList cliNotices;
        for (const auto& n : j.at("notices"))
            cliNotices << QString::fromStdString(n.get<std::string>());
        QStringList guiNotices;
        for (const std::string& n : session.variantTree()->kernel()->notices())
            guiNotices << QString::fromStdString(n);
        QCOMPARE(guiNotices, cliNotices);
        qInfo("%s: %zu legal single moves in both", qPrintable(QFileInfo(cubin).fileName()), gui.size());
    }
};

QTEST_GUILESS_MAIN(TestSessionParity)
#include "test_session_parity.moc"
