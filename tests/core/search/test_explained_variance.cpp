// The critic's explained variance every PPO update reports (core/search/rl/explained_variance.h):
// CleanRL's centred definition, so a value head right up to a constant offset explains everything.
// The form used before 2026-11-27 (an uncentred residual) gave such a head a large negative figure.
#include "core/search/rl/explained_variance.h"

#include <QtTest>

#include <vector>

using sassx::search::explainedVariance;

class TestExplainedVariance : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void figures_data()
    {
        QTest::addColumn<std::vector<double>>("returns");
        QTest::addColumn<std::vector<double>>("values");
        QTest::addColumn<double>("expected");
        const std::vector<double> ret{1, 2, 3, 4};
        QTest::newRow("exact values") << ret << ret << 1.0;
        // The offset a critic keeps while the reward normalisation's scale drifts.
        QTest::newRow("a constant offset") << ret << std::vector<double>{11, 12, 13, 14} << 1.0;
        QTest::newRow("the mean, a constant") << ret << std::vector<double>{2.5, 2.5, 2.5, 2.5} << 0.0;
        QTest::newRow("zeros: a constant") << ret << std::vector<double>{0, 0, 0, 0} << 0.0;
        // Residuals −3, −1, 1, 3 against returns' deviations −1.5, −0.5, 0.5, 1.5: 1 − 20 / 5.
        QTest::newRow("reversed") << ret << std::vector<double>{4, 3, 2, 1} << -3.0;
        // Half the spread: residuals −0.75, −0.25, 0.25, 0.75 around their mean, 1 − 1.25 / 5.
        QTest::newRow("half the slope") << ret << std::vector<double>{1.75, 2.25, 2.75, 3.25} << 0.75;
        // Returns that do not vary leave nothing to explain: 0, where CleanRL reports NaN.
        QTest::newRow("constant returns")
            << std::vector<double>{0, 0, 0} << std::vector<double>{1, -1, 0} << 0.0;
        QTest::newRow("empty") << std::vector<double>{} << std::vector<double>{} << 0.0;
    }
    void figures()
    {
        QFETCH(std::vector<double>, returns);
        QFETCH(std::vector<double>, values);
        QFETCH(double, expected);
        QVERIFY2(qAbs(explainedVariance(returns, values) - expected) < 1e-12,
                 qPrintable(QString::number(explainedVariance(returns, values))));
    }
};

QTEST_APPLESS_MAIN(TestExplainedVariance)
#include "test_explained_variance.moc"
