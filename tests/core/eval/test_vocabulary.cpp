// The evaluator's words at its edges (backend, figure kind, launch mode, graph use, metrics backend): each
// name reads back as its value and each value writes back as its name, an unknown name is refused with
// one line naming the choices, and a figure's source survives its label and its JSON. Then the one
// Speedup type: its conversion from time ratios and every written form a screen or report shows.
#include "core/eval/backend.h"
#include "core/eval/eval_result.h"
#include "core/eval/figure_kind.h"
#include "core/eval/launch_mode.h"
#include "core/eval/metrics_backend.h"
#include "core/eval/speedup.h"

#include <QtTest>

using namespace sassx;
using namespace sassx::eval;

namespace {

// Every name of `table`, parsed and written back; and `unknown` refused.
template <class E, std::size_t N>
void checkVocabulary(const std::array<EnumName<E>, N>& table, std::optional<E> (*parse)(std::string_view),
                     std::string (*name)(E), const QString& unknown, const QString& what)
{
    QSet<QString> seen;
    for (const EnumName<E>& e : table) {
        const QString text = QString::fromStdString(std::string(e.name));
        QVERIFY2(!seen.contains(text), qPrintable("duplicate name " + text));
        seen.insert(text);
        const std::optional<E> parsed = parse(e.name);
        QVERIFY2(parsed && *parsed == e.value, qPrintable(text));
        QCOMPARE(QString::fromStdString(name(e.value)), text);
    }
    QVERIFY(!parse(unknown.toStdString()));
    const auto refused = parseEnumOrError(table, unknown.toStdString(), what.toStdString());
    QVERIFY(!refused);
    const QString message = QString::fromStdString(refused.message());
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
    QVERIFY2(message.startsWith(what + " must be "), qPrintable(message));
    QVERIFY2(message.contains("'" + unknown + "'"), qPrintable(message));
    for (const QString& choice : seen)
        QVERIFY2(message.contains(choice), qPrintable(message));
}

} // namespace

class TestVocabulary : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<QString>("vocabulary");
        QTest::addColumn<QString>("unknown");
        // Unknown names a person or an old file could plausibly write: a case slip, a near synonym, empty.
        QTest::newRow("backend: case") << "backend"
                                       << "GPU";
        QTest::newRow("backend: synonym") << "backend"
                                          << "model";
        QTest::newRow("backend: empty") << "backend"
                                        << "";
        QTest::newRow("figure kind: synonym") << "figure kind"
                                              << "estimated";
        QTest::newRow("figure kind: label") << "figure kind"
                                            << "measured, NVIDIA H100";
        QTest::newRow("launch mode") << "launch mode"
                                     << "stream";
        QTest::newRow("graph use") << "graph use"
                                   << "yes";
        QTest::newRow("metrics backend: tool") << "metrics backend"
                                               << "nsight";
        QTest::newRow("metrics backend: case") << "metrics backend"
                                               << "CUPTI";
    }
    void roundTrip()
    {
        QFETCH(QString, vocabulary);
        QFETCH(QString, unknown);
        if (vocabulary == "backend")
            checkVocabulary(kBackendNames, parseBackend, backendName, unknown, vocabulary);
        else if (vocabulary == "figure kind")
            checkVocabulary(kFigureKindNames, parseFigureKind, figureKindName, unknown, vocabulary);
        else if (vocabulary == "launch mode")
            checkVocabulary(kLaunchModeNames, parseLaunchMode, launchModeName, unknown, vocabulary);
        else if (vocabulary == "graph use")
            checkVocabulary(kGraphUseNames, parseGraphUse, graphUseName, unknown, vocabulary);
        else if (vocabulary == "metrics backend")
            checkVocabulary(kMetricsBackendNames, parseMetricsBackend, metricsBackendName, unknown,
                            vocabulary);
        else
            QFAIL("no such vocabulary");
    }

    // The names other programs read (reports, session files, the worker protocol) stay as they were.
    void stableNames()
    {
        QCOMPARE(enumChoices(kBackendNames), std::string("auto, gpu or estimate"));
        QCOMPARE(enumChoices(kMetricsBackendNames), std::string("auto, cupti or ncu"));
        QCOMPARE(figureKindName(FigureKind::CuptiPcSampling), std::string("cupti-pcsampling"));
        QCOMPARE(launchModeName(LaunchMode::Graph), std::string("graph"));
    }

    void figureSource_data()
    {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("kind"); // -1: none
        QTest::newRow("measured") << "measured, NVIDIA H100"
                                  << "NVIDIA H100" << int(FigureKind::Measured);
        QTest::newRow("estimate") << "estimate, model sm_90"
                                  << "model sm_90" << int(FigureKind::Estimate);
        QTest::newRow("ncu") << "ncu, NVIDIA H200"
                             << "NVIDIA H200" << int(FigureKind::Ncu);
        QTest::newRow("no device") << "estimate"
                                   << "" << int(FigureKind::Estimate);
        QTest::newRow("unknown kind") << "guessed, GPU"
                                      << "GPU" << -1;
    }
    void figureSource()
    {
        QFETCH(QString, label);
        QFETCH(QString, device);
        QFETCH(int, kind);
        const FigureSource s = FigureSource::fromLabel(label.toStdString());
        QCOMPARE(QString::fromStdString(s.device), device);
        QCOMPARE(s.kind ? int(*s.kind) : -1, kind);
        QCOMPARE(s.isEstimate(), kind == int(FigureKind::Estimate));
        if (kind >= 0) QCOMPARE(QString::fromStdString(s.label()), label);
        const FigureSource back = figureSourceFromJson(toJson(s));
        QCOMPARE(back.device, s.device);
        QVERIFY(back.kind == s.kind);
    }

    // What a JSON source lacks comes from the fallback; an unknown kind is no kind, not a guess.
    void figureSourceJson()
    {
        const FigureSource fallback{"NVIDIA H100", FigureKind::Measured};
        const FigureSource deviceOnly = figureSourceFromJson({{"device", "NVIDIA H200"}}, fallback);
        QCOMPARE(deviceOnly.device, std::string("NVIDIA H200"));
        QVERIFY(deviceOnly.kind == FigureKind::Measured);
        QVERIFY(!figureSourceFromJson({{"kind", "guessed"}}, fallback).kind);
        QVERIFY(figureSourceFromJson(nlohmann::json::array(), fallback).kind == FigureKind::Measured);
    }

    void speedupText_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("low"); // 0: no interval
        QTest::addColumn<double>("high");
        QTest::addColumn<double>("noiseFloor");
        QTest::addColumn<bool>("estimate");
        QTest::addColumn<int>("decimals");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("interval");
        QTest::addColumn<QString>("full");
        QTest::newRow("point") << 1.0556 << 0.0 << 0.0 << 0.0 << false << 4 << "1.0556×"
                               << ""
                               << "1.0556×";
        QTest::newRow("estimate") << 1.0556 << 0.0 << 0.0 << 0.0 << true << 4 << "1.0556× est."
                                  << ""
                                  << "1.0556× est.";
        QTest::newRow("interval") << 1.015 << 1.01 << 1.02 << 0.003 << false << 4 << "1.0150×"
                                  << "[1.0100, 1.0200]"
                                  << "1.0150× [1.0100, 1.0200]";
        QTest::newRow("three places") << 1.0234 << 1.0101 << 1.0367 << 0.0 << false << 3 << "1.023×"
                                      << "[1.010, 1.037]"
                                      << "1.023× [1.010, 1.037]";
        QTest::newRow("below the noise floor")
            << 1.0012 << 0.999 << 1.0034 << 0.004 << false << 4 << "1.0012×"
            << "[0.9990, 1.0034]"
            << "1.0012× [0.9990, 1.0034], below the noise floor";
        QTest::newRow("a loss below the floor") << 0.998 << 0.0 << 0.0 << 0.004 << false << 4 << "0.9980×"
                                                << ""
                                                << "0.9980×, below the noise floor";
        QTest::newRow("a loss above the floor") << 0.95 << 0.94 << 0.96 << 0.004 << false << 2 << "0.95×"
                                                << "[0.94, 0.96]"
                                                << "0.95× [0.94, 0.96]";
        // The estimate has no noise floor to be below: it is labelled, not judged.
        QTest::newRow("estimate near 1") << 1.0001 << 0.0 << 0.0 << 0.004 << true << 4 << "1.0001× est."
                                         << ""
                                         << "1.0001× est.";
    }
    void speedupText()
    {
        QFETCH(double, value);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(double, noiseFloor);
        QFETCH(bool, estimate);
        QFETCH(int, decimals);
        QFETCH(QString, text);
        QFETCH(QString, interval);
        QFETCH(QString, full);
        Speedup s{value, std::nullopt, noiseFloor, estimate};
        if (low > 0) s.interval = SpeedupInterval{low, high};
        QCOMPARE(QString::fromStdString(s.text(decimals)), text);
        QCOMPARE(QString::fromStdString(s.intervalText(decimals)), interval);
        QCOMPARE(QString::fromStdString(s.fullText(decimals)), full);
    }

    // Time ratios (candidate / baseline) become speed-ups once: the point inverts and the ends swap.
    void fromTimeRatios()
    {
        QCOMPARE(Speedup::fromTimeRatio(0.8), 1.25);
        QCOMPARE(Speedup::fromTimeRatio(0.0), 0.0);
        QCOMPARE(Speedup::fromTimeRatio(-1.0), 0.0);
        const Speedup s = Speedup::fromRatio({0.8, 0.5, 1.0, 40, 1}, 0.003, false);
        QCOMPARE(s.value, 1.25);
        QVERIFY(s.interval);
        QCOMPARE(s.interval->low, 1.0);
        QCOMPARE(s.interval->high, 2.0);
        QCOMPARE(s.noiseFloor, 0.003);
        QVERIFY(!Speedup::fromRatio({0.8, 0.8, 0.8, 0, 1}, 0.0, true).interval); // no rounds: no interval
    }

    void speedupOfResult()
    {
        EvalResult r;
        QVERIFY(!speedupOf(r)); // no timing
        r.timing = TimingFigures{};
        r.timing->ratio = {0.5, 0.4, 0.6, 30, 1};
        r.timing->noiseFloor = 0.002;
        r.source = {"NVIDIA H100", FigureKind::Measured};
        auto measured = speedupOf(r);
        QVERIFY(measured && measured->interval && !measured->estimate);
        QCOMPARE(QString::fromStdString(measured->fullText(2)), QStringLiteral("2.00× [1.67, 2.50]"));
        r.source = {"model sm_90", FigureKind::Estimate};
        auto estimated = speedupOf(r);
        QVERIFY(estimated && !estimated->interval && estimated->estimate);
        QCOMPARE(QString::fromStdString(estimated->fullText(2)), QStringLiteral("2.00× est."));
        r.timing->ratio.median = 0.0;
        QVERIFY(!speedupOf(r));
    }
};

QTEST_GUILESS_MAIN(TestVocabulary)
#include "test_vocabulary.moc"
