// The search's typed words (search_vocabulary.h): each name parses back to its value, nothing else
// parses, and the checkpoint and CLI edges refuse an unknown word in one line.
#include "core/search/search_config.h"
#include "core/search/search_state.h"
#include "core/search/search_vocabulary.h"

#include <QtTest>

using namespace sassx;
using namespace sassx::search;

class TestSearchVocabulary : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void presets_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("preset"); // -1: refused
        QTest::newRow("default") << "" << int(AnnealPreset::Default);
        QTest::newRow("sip") << "sip" << int(AnnealPreset::Sip);
        QTest::newRow("upper case") << "SIP" << -1;
        QTest::newRow("unknown") << "fast" << -1;
        QTest::newRow("the default's description") << "default" << -1;
    }
    void presets()
    {
        QFETCH(QString, name);
        QFETCH(int, preset);
        const auto parsed = parsePreset(name.toStdString());
        QCOMPARE(parsed.has_value(), preset >= 0);
        if (!parsed) return;
        QCOMPARE(int(*parsed), preset);
        QCOMPARE(QString::fromStdString(presetName(*parsed)), name);
    }

    void guides_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("guide");
        QTest::newRow("uniform") << "uniform" << int(ProposalGuide::Uniform);
        QTest::newRow("stalls") << "stalls" << int(ProposalGuide::Stalls);
        QTest::newRow("empty") << "" << -1;
        QTest::newRow("unknown") << "hotspots" << -1;
        QTest::newRow("trailing space") << "stalls " << -1;
    }
    void guides()
    {
        QFETCH(QString, name);
        QFETCH(int, guide);
        const auto parsed = parseGuide(name.toStdString());
        QCOMPARE(parsed.has_value(), guide >= 0);
        if (!parsed) return;
        QCOMPARE(int(*parsed), guide);
        QCOMPARE(QString::fromStdString(guideName(*parsed)), name);
    }

    void stopReasons_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("reason");
        QTest::newRow("budget") << "budget" << int(StopReason::Budget);
        QTest::newRow("temperature") << "temperature" << int(StopReason::Temperature);
        QTest::newRow("done") << "done" << int(StopReason::Done);
        QTest::newRow("stopped") << "stopped" << int(StopReason::Stopped);
        QTest::newRow("exhausted") << "exhausted" << int(StopReason::Exhausted);
        QTest::newRow("converged") << "converged" << int(StopReason::Converged);
        QTest::newRow("empty") << "" << -1;
        QTest::newRow("unknown") << "finished" << -1;
    }
    void stopReasons()
    {
        QFETCH(QString, name);
        QFETCH(int, reason);
        const auto parsed = parseStopReason(name.toStdString());
        QCOMPARE(parsed.has_value(), reason >= 0);
        if (!parsed) return;
        QCOMPARE(int(*parsed), reason);
        QCOMPARE(QString::fromStdString(stopReasonName(*parsed)), name);
        // Through a checkpoint and back, with its description.
        SearchState s;
        s.config.budgetEvals = 10;
        s.finished = true;
        s.stopReason = *parsed;
        const nlohmann::json j = toJson(s);
        QCOMPARE(QString::fromStdString(j.at("stop_reason").get<std::string>()), name);
        const auto back = searchStateFromJson(j);
        QVERIFY2(back, back ? "" : back.message().c_str());
        QCOMPARE(back->stopReason, parsed);
        QVERIFY(!stopDescription(*back).empty());
    }

    // A race's outcome travels as eval::RaceOutcome; its name only in a history's JSON and CSV, where an
    // unknown one is refused in one line.
    void raceOutcomes_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("outcome"); // -1: not raced; -2: refused
        QTest::newRow("dropped") << "dropped" << int(eval::RaceOutcome::Dropped);
        QTest::newRow("rejected") << "rejected" << int(eval::RaceOutcome::Rejected);
        QTest::newRow("won") << "won" << int(eval::RaceOutcome::Won);
        QTest::newRow("not raced") << "" << -1;
        QTest::newRow("unknown") << "lost" << -2;
        QTest::newRow("capitalised") << "Won" << -2;
    }
    void raceOutcomes()
    {
        QFETCH(QString, name);
        QFETCH(int, outcome);
        SearchEvaluation e;
        e.kind = "move";
        e.figures.ok = true;
        e.figures.speedup = e.figures.low = e.figures.high = 1.0;
        if (outcome >= 0) e.figures.race = eval::RaceOutcome(outcome);
        nlohmann::json j = toJson(e);
        if (outcome == -2) j["figures"]["race"] = name.toStdString();
        QCOMPARE(QString::fromStdString(j["figures"].value("race", std::string())), name);
        const auto back = evaluationFromJson(j);
        if (outcome == -2) {
            QVERIFY(!back);
            QCOMPARE(QString::fromStdString(back.message()),
                     "a search evaluation: a race outcome must be dropped, rejected or won (not '" + name +
                         "')");
            return;
        }
        QVERIFY2(back, back ? "" : back.message().c_str());
        QVERIFY(back->figures.race == e.figures.race);
        QVERIFY(QString::fromStdString(historyCsvRow(*back)).trimmed().endsWith("," + name));
    }

    // An evaluation's figures carry their source as a FigureSource; the checkpoint keeps its label, and a
    // label read back gives the same kind and device (an unknown kind reads as none, never a guess).
    void figureSources_data()
    {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("device");
        QTest::addColumn<int>("kind"); // -1: none
        QTest::newRow("measured") << "measured, NVIDIA H100 80GB HBM3"
                                  << "NVIDIA H100 80GB HBM3" << int(eval::FigureKind::Measured);
        QTest::newRow("estimate") << "estimate, model sm_90"
                                  << "model sm_90" << int(eval::FigureKind::Estimate);
        QTest::newRow("failed before any answer") << ""
                                                  << "" << -1;
        QTest::newRow("unknown kind") << "guessed, GPU"
                                      << "GPU" << -1;
    }
    void figureSources()
    {
        QFETCH(QString, label);
        QFETCH(QString, device);
        QFETCH(int, kind);
        SearchEvaluation e;
        e.kind = "move";
        e.figures.ok = true;
        e.figures.speedup = e.figures.low = e.figures.high = 1.0;
        nlohmann::json j = toJson(e);
        j["figures"]["source"] = label.toStdString();
        const auto back = evaluationFromJson(j);
        QVERIFY2(back, back ? "" : back.message().c_str());
        const eval::FigureSource& s = back->figures.source;
        QCOMPARE(QString::fromStdString(s.device), device);
        QCOMPARE(s.kind ? int(*s.kind) : -1, kind);
        QCOMPARE(s.isEstimate(), kind == int(eval::FigureKind::Estimate));
        QCOMPARE(s.empty(), label.isEmpty());
        if (kind >= 0 || label.isEmpty())
            QCOMPARE(QString::fromStdString(toJson(*back)["figures"].at("source").get<std::string>()), label);
    }

    // A checkpoint still running has no stop reason (""), and one it does not know is refused in a line.
    void checkpointStopReasons()
    {
        SearchState s;
        s.config.budgetEvals = 10;
        nlohmann::json j = toJson(s);
        QCOMPARE(j.at("stop_reason").get<std::string>(), std::string());
        auto running = searchStateFromJson(j);
        QVERIFY(running);
        QVERIFY(!running->stopReason);
        QVERIFY(stopDescription(*running).empty());
        j["stop_reason"] = "finished";
        const auto refused = searchStateFromJson(j);
        QVERIFY(!refused);
        QVERIFY2(QString::fromStdString(refused.message()).contains(QStringLiteral("unknown stop reason")),
                 refused.message().c_str());
        QVERIFY(refused.message().find('\n') == std::string::npos);
    }

    // The configuration's JSON names its preset and guide, reads them back, and refuses unknown ones.
    void configurationWords_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error"); // empty: read
        QTest::newRow("preset sip") << "preset"
                                    << "sip"
                                    << "";
        QTest::newRow("preset default") << "preset"
                                        << ""
                                        << "";
        QTest::newRow("preset unknown") << "preset"
                                        << "fast"
                                        << "unknown preset 'fast'";
        QTest::newRow("guide stalls") << "guide"
                                      << "stalls"
                                      << "";
        QTest::newRow("guide unknown") << "guide"
                                       << "hotspots"
                                       << "unknown guide 'hotspots'";
    }
    void configurationWords()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, error);
        SearchConfig c;
        c.algorithm = Algorithm::Anneal;
        c.budgetEvals = 10;
        nlohmann::json j = toJson(c);
        QCOMPARE(j.at("preset").get<std::string>(), std::string());
        QCOMPARE(j.at("guide").get<std::string>(), std::string("uniform"));
        j[key.toStdString()] = value.toStdString();
        const auto read = searchConfigFromJson(j);
        if (!error.isEmpty()) {
            QVERIFY(!read);
            QVERIFY2(QString::fromStdString(read.message()).contains(error), read.message().c_str());
            return;
        }
        QVERIFY2(read, read ? "" : read.message().c_str());
        QVERIFY(toJson(*read) == j);
        if (key == QLatin1String("preset")) {
            QCOMPARE(QString::fromStdString(presetName(read->preset)), value);
            QCOMPARE(QString::fromStdString(read->describe()).contains(QStringLiteral("(sip)")),
                     value == QLatin1String("sip"));
        } else {
            QCOMPARE(QString::fromStdString(guideName(read->guide)), value);
        }
    }
};

QTEST_GUILESS_MAIN(TestSearchVocabulary)
#include "test_search_vocabulary.moc"
