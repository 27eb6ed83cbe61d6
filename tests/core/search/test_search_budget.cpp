// A search's budget (search_budget.h): the one duration parser of every typed budget, its one-line
// refusal (a zero among them: 0 is stored as "no limit"), and the one fraction-of-budget formula the
// progress bars, the tune's board and the annealer's cooling read.
#include "core/search/search_budget.h"
#include "core/search/search_config.h"

#include <QtTest>

using namespace sassx;
using namespace sassx::search;

class TestSearchBudget : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void durations_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("seconds"); // < 0: refused
        QTest::newRow("minutes") << "10m" << 600.0;
        QTest::newRow("seconds") << "90s" << 90.0;
        QTest::newRow("hours") << "1h" << 3600.0;
        QTest::newRow("no unit: seconds") << "45" << 45.0;
        QTest::newRow("fraction") << "1.5m" << 90.0;
        QTest::newRow("zero") << "0" << -1.0;
        QTest::newRow("zero with a unit") << "0s" << -1.0;
        QTest::newRow("zero as a fraction") << "0.0m" << -1.0;
        QTest::newRow("negative") << "-5m" << -1.0;
        QTest::newRow("word") << "ten" << -1.0;
        QTest::newRow("unit only") << "m" << -1.0;
        QTest::newRow("two units") << "5mm" << -1.0;
        QTest::newRow("unknown unit") << "2d" << -1.0;
        QTest::newRow("empty") << "" << -1.0;
        QTest::newRow("infinite") << "infm" << -1.0;
        QTest::newRow("not a number") << "nan" << -1.0;
        QTest::newRow("space inside") << "5 m" << -1.0;
    }
    void durations()
    {
        QFETCH(QString, text);
        QFETCH(double, seconds);
        const auto d = parseDuration(text.toStdString(), "--budget-time");
        if (seconds >= 0) {
            QVERIFY2(d, d ? "" : d.message().c_str());
            QCOMPARE(*d, seconds);
            return;
        }
        QVERIFY(!d);
        QCOMPARE(QString::fromStdString(d.message()),
                 "--budget-time takes a duration above zero such as 90s, 10m or 1h, not '" + text + "'");
    }

    void fractions_data()
    {
        QTest::addColumn<qint64>("budgetEvals");
        QTest::addColumn<double>("budgetSeconds");
        QTest::addColumn<qint64>("evaluations");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<double>("fraction");
        QTest::newRow("evaluations") << qint64(200) << 0.0 << qint64(50) << 999.0 << 0.25;
        QTest::newRow("time") << qint64(0) << 60.0 << qint64(999) << 15.0 << 0.25;
        QTest::newRow("both: the larger share") << qint64(100) << 60.0 << qint64(10) << 30.0 << 0.5;
        QTest::newRow("spent past the budget") << qint64(10) << 0.0 << qint64(12) << 0.0 << 1.0;
        QTest::newRow("no limit: ends by its own rule") << qint64(0) << 0.0 << qint64(500) << 60.0 << 0.0;
        QTest::newRow("nothing spent") << qint64(10) << 60.0 << qint64(0) << 0.0 << 0.0;
    }
    void fractions()
    {
        QFETCH(qint64, budgetEvals);
        QFETCH(double, budgetSeconds);
        QFETCH(qint64, evaluations);
        QFETCH(double, seconds);
        QFETCH(double, fraction);
        SearchConfig c;
        c.budgetEvals = budgetEvals;
        c.budgetSeconds = budgetSeconds;
        QCOMPARE(budgetFraction(c, evaluations, seconds), fraction);
    }
};

QTEST_GUILESS_MAIN(TestSearchBudget)
#include "test_search_budget.moc"
