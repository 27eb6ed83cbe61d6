// How a child process ended (subprocess.h): real children of /bin/sh that exit with a status, die of a
// signal or outlive their deadline, each read as a ProcessExit value and written as its message text;
// the ends' name table reads back both ways.
#include "core/common/subprocess.h"

#include <QtTest>

#include <chrono>

using namespace sassx;
using namespace std::chrono_literals;

class TestProcessExit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void children_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("end");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("text");
        QTest::newRow("success") << "exit 0" << int(ProcessEnd::Exited) << 0 << "exit 0";
        QTest::newRow("status 3") << "exit 3" << int(ProcessEnd::Exited) << 3 << "exit 3";
        QTest::newRow("killed") << "kill -9 $$" << int(ProcessEnd::Signaled) << 9 << "signal 9";
        QTest::newRow("terminated") << "kill -15 $$" << int(ProcessEnd::Signaled) << 15 << "signal 15";
        QTest::newRow("past its deadline") << "sleep 30" << int(ProcessEnd::TimedOut) << 0 << "timeout";
    }
    void children()
    {
        QFETCH(QString, script);
        QFETCH(int, end);
        QFETCH(int, code);
        QFETCH(QString, text);
        auto out = runProcess({{"/bin/sh", "-c", script.toStdString()}, {}, false}, 1500ms);
        QVERIFY2(out, out ? "" : out.message().c_str());
        QCOMPARE(int(out->exit.end), end);
        QCOMPARE(out->exit.code, code);
        QCOMPARE(QString::fromStdString(out->exit.text()), text);
        QCOMPARE(out->ok(), end == int(ProcessEnd::Exited) && code == 0);
        QCOMPARE(out->exit.timedOut(), end == int(ProcessEnd::TimedOut));
        QVERIFY(out->exit.exitedWith(code) == (end == int(ProcessEnd::Exited)));
    }

    // A child still running has no exit; once reaped, wait() gives the same one every time.
    void waitOnRunningChild()
    {
        auto p = Subprocess::spawn({{"/bin/sh", "-c", "read line; exit 4"}, {}, false});
        QVERIFY2(p, p ? "" : p.message().c_str());
        QVERIFY(!(*p)->wait(50ms));
        QVERIFY((*p)->running());
        (*p)->closeStdin();
        const std::optional<ProcessExit> first = (*p)->wait(5000ms);
        QVERIFY2(first && first->exitedWith(4), first ? first->text().c_str() : "still running");
        QVERIFY((*p)->wait(0ms) == first);
    }

    void endNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("end"); // -1: refused
        for (const EnumName<ProcessEnd>& e : kProcessEndNames)
            QTest::newRow(std::string(e.name).c_str()) << QString::fromUtf8(e.name) << int(e.value);
        QTest::newRow("a whole text") << "exit 0" << -1;
        QTest::newRow("unknown") << "crash" << -1;
    }
    void endNames()
    {
        QFETCH(QString, name);
        QFETCH(int, end);
        const auto parsed = parseEnumOrError(kProcessEndNames, name.toStdString(), "a process end");
        if (end < 0) {
            QVERIFY(!parsed);
            QCOMPARE(QString::fromStdString(parsed.message()),
                     "a process end must be exit, signal or timeout (not '" + name + "')");
            return;
        }
        QVERIFY(parsed);
        QCOMPARE(int(*parsed), end);
        QCOMPARE(QString::fromUtf8(enumName(kProcessEndNames, *parsed)), name);
    }
};

QTEST_GUILESS_MAIN(TestProcessExit)
#include "test_process_exit.moc"
