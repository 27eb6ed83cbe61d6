// info, annotate and legal on the samples: exit 0, the JSON shape, text and JSON agreeing.
#include "test_cli.h"

#include <QRegularExpression>
#include <QSet>
#include <QtTest>

void TestCli::info_data()
{
    QTest::addColumn<QString>("stem");
    QTest::addColumn<bool>("json");
    QTest::newRow("rmsnorm text") << "rmsnorm" << false;
    QTest::newRow("rmsnorm json") << "rmsnorm" << true;
    QTest::newRow("sgemm_leakyrelu json") << "sgemm_leakyrelu" << true;
    for (const QString& t : kTritonSamples)
        QTest::newRow(qPrintable("triton " + t + " json")) << t << true;
}

void TestCli::info()
{
    QFETCH(QString, stem);
    QFETCH(bool, json);
    const QString cubin = sample(stem);
    if (cubin.isEmpty()) QSKIP(qPrintable(stem + ".sm_90.cubin was not built"));
    const QString kernel = kernelOf(stem);
    const CliRun r = runCli(json ? QStringList{"info", cubin, "--json"} : QStringList{"info", cubin});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    if (!json) {
        const QStringList lines = r.outLines();
        QVERIFY2(lines.size() >= 3, r.out.constData());
        QVERIFY2(lines[0].startsWith(cubin + ": cubin, 1 cubin"), qPrintable(lines[0]));
        QVERIFY2(lines[1].contains("sm_90"), qPrintable(lines[1]));
        QVERIFY2(lines[2].trimmed().startsWith(kernel + ": ") && lines[2].contains(" instructions"),
                 qPrintable(lines[2]));
        return;
    }
    QString error;
    const QJsonObject j = parseObject(r.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = checkKeys(
        j, "info",
        {{"path", QJsonValue::String}, {"kind", QJsonValue::String}, {"cubins", QJsonValue::Array}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(j["kind"].toString(), QString("cubin"));
    QCOMPARE(j["cubins"].toArray().size(), 1);
    const QJsonObject c = j["cubins"][0].toObject();
    error = checkKeys(
        c, "cubins[0]",
        {{"origin", QJsonValue::String}, {"arch", QJsonValue::String}, {"kernels", QJsonValue::Array}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(c["arch"].toString().startsWith("sm_90"), qPrintable(c["arch"].toString())); // Triton: sm_90a
    const QJsonObject k = c["kernels"][0].toObject();
    error = checkKeys(k, "kernels[0]",
                      {{"name", QJsonValue::String},
                       {"instructions", QJsonValue::Double},
                       {"code_bytes", QJsonValue::Double},
                       {"params", QJsonValue::Array},
                       {"shared_static", QJsonValue::Double},
                       {"relocations", QJsonValue::Double},
                       {"attributes", QJsonValue::Array},
                       {"instruction_offsets", QJsonValue::Object}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(k["name"].toString(), kernel);
    QVERIFY(k["instructions"].toInt() > 0);
    QCOMPARE(k["code_bytes"].toInt(), 16 * k["instructions"].toInt());
    // The parameters KPARAM_INFO lists are the ones the sample's launch spec passes.
    QString specError;
    const QJsonObject spec = parseObject(readBytes(m_samples + "/" + stem + ".launch.json"), &specError);
    QVERIFY2(specError.isEmpty(), qPrintable(specError));
    const QJsonArray params = k["params"].toArray();
    QCOMPARE(params.size(), spec["params"].toArray().size());
    for (int i = 0; i < params.size(); ++i) {
        error = checkKeys(
            params[i].toObject(), QStringLiteral("params[%1]").arg(i),
            {{"ordinal", QJsonValue::Double}, {"offset", QJsonValue::Double}, {"size", QJsonValue::Double}});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(params[i]["ordinal"].toInt(), i);
    }
}

void TestCli::annotate_data()
{
    QTest::addColumn<QString>("stem");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<bool>("json");
    QTest::newRow("rmsnorm text") << "rmsnorm" << QStringList{} << false;
    QTest::newRow("rmsnorm json") << "rmsnorm" << QStringList{"--json"} << true;
    QTest::newRow("sgemm_leakyrelu --kernel json")
        << "sgemm_leakyrelu" << QStringList{"--kernel", "sgemm_leakyrelu", "--json"} << true;
    QTest::newRow("triton gemm_leakyrelu json") << "gemm_leakyrelu" << QStringList{"--json"} << true;
}

void TestCli::annotate()
{
    QFETCH(QString, stem);
    QFETCH(QStringList, extra);
    QFETCH(bool, json);
    const QString cubin = sample(stem);
    if (cubin.isEmpty()) QSKIP(qPrintable(stem + ".sm_90.cubin was not built"));
    const CliRun& r = cachedRun(QStringList{"annotate", cubin} + extra);
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    if (!json) {
        // One line per instruction at least, each instruction's opcode in the listing.
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(r.outLines().size() >= m_rmsInstructions.size(), r.out.left(400).constData());
        for (const QJsonValue& ins : m_rmsInstructions)
            QVERIFY2(text.contains(ins["opcode"].toString()), qPrintable(ins["opcode"].toString()));
        return;
    }
    QString error;
    const QJsonObject j = parseObject(r.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = checkKeys(j, "annotate",
                      {{"arch", QJsonValue::String},
                       {"kernel", QJsonValue::String},
                       {"blocks", QJsonValue::Array},
                       {"instructions", QJsonValue::Array}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(j["arch"].toString().startsWith("sm_90"), qPrintable(j["arch"].toString())); // Triton: sm_90a
    QCOMPARE(j["kernel"].toString(), kernelOf(stem));
    const QJsonArray blocks = j["blocks"].toArray();
    const QJsonArray insts = j["instructions"].toArray();
    QVERIFY(!blocks.isEmpty() && !insts.isEmpty());
    // Blocks tile the instructions in order.
    int next = 0;
    for (const QJsonValue& b : blocks) {
        QCOMPARE(b["first"].toInt(), next);
        QVERIFY(b["end"].toInt() > next);
        next = b["end"].toInt();
    }
    QCOMPARE(next, int(insts.size()));
    static const QRegularExpression hex16("^[0-9a-f]{16}$");
    for (int i = 0; i < insts.size(); ++i) {
        const QJsonObject ins = insts[i].toObject();
        const QString where = QStringLiteral("instructions[%1]").arg(i);
        error = checkKeys(ins, where,
                          {{"index", QJsonValue::Double},
                           {"offset", QJsonValue::Double},
                           {"predicate", QJsonValue::String},
                           {"opcode", QJsonValue::String},
                           {"operands", QJsonValue::Array},
                           {"raw", QJsonValue::Array},
                           {"control", QJsonValue::Object},
                           {"defs", QJsonValue::Array},
                           {"uses", QJsonValue::Array},
                           {"block", QJsonValue::Double},
                           {"cycle", QJsonValue::Double},
                           {"live_regs", QJsonValue::Double},
                           {"deps", QJsonValue::Array}});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(ins["index"].toInt(), i);
        QCOMPARE(ins["offset"].toInt(), 16 * i);
        QVERIFY2(!ins["opcode"].toString().isEmpty(), qPrintable(where));
        const QJsonArray raw = ins["raw"].toArray();
        QVERIFY2(raw.size() == 2 && hex16.match(raw[0].toString()).hasMatch() &&
                     hex16.match(raw[1].toString()).hasMatch(),
                 qPrintable(where + " raw"));
        const QJsonObject c = ins["control"].toObject();
        error = checkKeys(c, where + ".control",
                          {{"stall", QJsonValue::Double},
                           {"yield", QJsonValue::Double},
                           {"wbar", QJsonValue::Double},
                           {"rbar", QJsonValue::Double},
                           {"wait", QJsonValue::Double},
                           {"reuse", QJsonValue::Double}});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(c["stall"].toInt() <= 15 && c["yield"].toInt() <= 1 && c["wbar"].toInt() <= 7 &&
                     c["rbar"].toInt() <= 7 && c["wait"].toInt() <= 63 && c["reuse"].toInt() <= 15,
                 qPrintable(where + " control out of range"));
        const QJsonObject b = blocks[ins["block"].toInt()].toObject();
        QVERIFY2(b["first"].toInt() <= i && i < b["end"].toInt(), qPrintable(where + " block"));
        for (const QJsonValue& d : ins["deps"].toArray()) {
            error = checkKeys(d.toObject(), where + ".deps",
                              {{"from", QJsonValue::Double},
                               {"kind", QJsonValue::String},
                               {"distance", QJsonValue::Double}});
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QVERIFY(d["from"].toInt() < insts.size());
        }
    }
}

void TestCli::annotateToFile()
{
    if (m_vars["rmsnorm"].isEmpty()) QSKIP("rmsnorm.sm_90.cubin was not built");
    const QString out = tmp("rmsnorm.annotation.json");
    const CliRun r = runCli({"annotate", m_vars["rmsnorm"], "--json", "-o", out});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QVERIFY2(r.out.isEmpty(), r.out.left(200).constData());
    QCOMPARE(readBytes(out), cachedRun({"annotate", m_vars["rmsnorm"], "--json"}).out);
    QVERIFY2(r.errLines().value(0).startsWith("annotated rmsnorm (sm_90, ") &&
                 r.errLines().value(0).endsWith("-> " + out),
             r.err.constData());
}

void TestCli::annotateRequiredLatency_data()
{
    QTest::addColumn<QString>("stem");
    QTest::newRow("triton attention_fwd") << "attention_fwd";
    QTest::newRow("sgemm_leakyrelu") << "sgemm_leakyrelu";
}

// The latency a dependency must meet is the checker's figure, in the text and the JSON alike: never above
// the distance ptxas left in its own (legal) order (attention_fwd's IMAD.WIDE.U32 → LDG said d=5/L6), and
// with its source: M measured, L the table, P the least distance ptxas left for the pair (above the
// table: the SGEMM's ISETP → guard of an IADD3 needs 271 cycles for that reason, the table says less),
// O ptxas' own distance for the edge.
void TestCli::annotateRequiredLatency()
{
    QFETCH(QString, stem);
    const QString cubin = sample(stem);
    if (cubin.isEmpty()) QSKIP(qPrintable(stem + ".sm_90.cubin was not built"));
    const CliRun& r = cachedRun({"annotate", cubin, "--json"});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QString error;
    const QJsonArray insts = parseObject(r.out, &error)["instructions"].toArray();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    static const QStringList sources{"measured", "table", "ptxas_least", "original"};
    QStringList figures; // "from->to d=X/SY" from the JSON, to hold against the text
    bool sawLeast = false;
    for (const QJsonValue& ins : insts)
        for (const QJsonValue& d : ins["deps"].toArray()) {
            if (!d.toObject().contains("latency")) continue;
            const int latency = d["latency"].toInt(), distance = d["distance"].toInt();
            const QString source = d["latency_source"].toString();
            const QString where = QStringLiteral("%1 <- %2 d=%3 latency %4 (%5)")
                                      .arg(ins["index"].toInt())
                                      .arg(d["from"].toInt())
                                      .arg(distance)
                                      .arg(latency)
                                      .arg(source);
            QVERIFY2(sources.contains(source), qPrintable(where));
            QVERIFY2(latency <= distance, qPrintable(where));
            const char mark = "MLPO"[sources.indexOf(source)];
            figures << QStringLiteral("d=%1/%2%3").arg(distance).arg(QLatin1Char(mark)).arg(latency);
            if (source == "ptxas_least") {
                sawLeast = true;
                QVERIFY2(d["table_latency"].toInt() < latency, qPrintable(where));
            }
            if (stem == "sgemm_leakyrelu" && ins["offset"].toInt() == 0x1820 &&
                d["from"].toInt() == 0x0850 / 16 && d["kind"].toString() == "raw") {
                QCOMPARE(latency, 271);
                QCOMPARE(source, QStringLiteral("ptxas_least"));
            }
        }
    QVERIFY(sawLeast);
    // The text listing states the same figures in the same order.
    const CliRun& text = cachedRun({"annotate", cubin});
    QVERIFY2(text.ok(), qPrintable(text.describe()));
    static const QRegularExpression figure(QStringLiteral("d=-?\\d+/[A-Z]\\d+"));
    QStringList written;
    for (auto m = figure.globalMatch(QString::fromUtf8(text.out)); m.hasNext();)
        written << m.next().captured(0);
    QCOMPARE(written, figures);
}

void TestCli::legal_data()
{
    QTest::addColumn<QString>("stem");
    QTest::addColumn<bool>("all");
    QTest::newRow("rmsnorm memory") << "rmsnorm" << false;
    QTest::newRow("rmsnorm --all") << "rmsnorm" << true;
    QTest::newRow("sgemm_leakyrelu --all") << "sgemm_leakyrelu" << true;
}

// The JSON's shape; the text lists the same moves in the same order; memory moves are among all moves.
void TestCli::legal()
{
    QFETCH(QString, stem);
    QFETCH(bool, all);
    const QString cubin = sample(stem);
    if (cubin.isEmpty()) QSKIP(qPrintable(stem + ".sm_90.cubin was not built"));
    QStringList args{"legal", cubin};
    if (all) args << "--all";
    const CliRun& j = cachedRun(args + QStringList{"--json"});
    QVERIFY2(j.ok(), qPrintable(j.describe()));
    QString error;
    const QJsonObject o = parseObject(j.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = checkKeys(o, "legal",
                      {{"kernel", QJsonValue::String},
                       {"arch", QJsonValue::String},
                       {"scope", QJsonValue::String},
                       {"moves", QJsonValue::Array}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(o["kernel"].toString(), kernelOf(stem));
    QCOMPARE(o["scope"].toString(), QString(all ? "all" : "memory"));
    const QJsonArray moves = o["moves"].toArray();
    QSet<QPair<int, int>> allMoves;
    for (const QJsonValue& m : m_rmsLegalAll)
        allMoves.insert({m["from"].toInt(), m["to"].toInt()});
    for (const QJsonValue& m : moves) {
        error = checkKeys(m.toObject(), "move", {{"from", QJsonValue::Double}, {"to", QJsonValue::Double}});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(m["from"].toInt() != m["to"].toInt());
        if (stem == "rmsnorm" && !all)
            QVERIFY2(allMoves.contains({m["from"].toInt(), m["to"].toInt()}),
                     qPrintable(QStringLiteral("memory move %1:%2 is not in --all")
                                    .arg(m["from"].toInt())
                                    .arg(m["to"].toInt())));
    }
    if (all) QVERIFY2(!moves.isEmpty(), "no legal move at all in a CUDA sample");

    const CliRun& t = cachedRun(args);
    QVERIFY2(t.ok(), qPrintable(t.describe()));
    const QStringList lines = t.outLines();
    static const QRegularExpression header(R"(^(\S+) \((sm_\w+)\): (\d+) legal single moves of (\d+) )");
    const auto h = header.match(lines.value(0));
    QVERIFY2(h.hasMatch(), qPrintable(lines.value(0)));
    QCOMPARE(h.captured(1), kernelOf(stem));
    QCOMPARE(h.captured(3).toInt(), int(moves.size()));
    // One "FROM -> TO  instruction" line per move, in the JSON's order.
    for (int i = 0; i < moves.size(); ++i) {
        const QStringList w = lines.value(i + 1).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        QVERIFY2(w.size() >= 4 && w[0].toInt() == moves.at(i)["from"].toInt() && w[1] == "->" &&
                     w[2].toInt() == moves.at(i)["to"].toInt(),
                 qPrintable(lines.value(i + 1)));
    }
}

void TestCli::legalOnTriton_data()
{
    QTest::addColumn<QString>("stem");
    for (const QString& t : kTritonSamples)
        QTest::newRow(qPrintable(t)) << t;
}

// Triton cubins carry line tables; the writer must keep them right rather than make every
// instruction a wall, so some single move is legal.
void TestCli::legalOnTriton()
{
    QFETCH(QString, stem);
    const QString cubin = sample(stem);
    if (cubin.isEmpty()) QSKIP(qPrintable(stem + ".sm_90.cubin is not in the build's samples"));
    QString error;
    const QJsonArray moves = legalMoves(cubin, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(!moves.isEmpty(), qPrintable("legal --all --json lists no move for " + stem));
}

void TestCli::legalTextExplainsNoMoves_data()
{
    QTest::addColumn<QString>("stem");
    for (const QString& s : QStringList{"rmsnorm"} + kTritonSamples)
        QTest::newRow(qPrintable(s)) << s;
}

// `legal` (text) on a kernel where no memory instruction can move says why on a second line.
void TestCli::legalTextExplainsNoMoves()
{
    QFETCH(QString, stem);
    const QString cubin = sample(stem);
    if (cubin.isEmpty()) QSKIP(qPrintable(stem + ".sm_90.cubin was not built"));
    const CliRun& r = cachedRun({"legal", cubin});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    const QStringList lines = r.outLines();
    static const QRegularExpression count(R"(: (\d+) legal single move)");
    const auto m = count.match(lines.value(0));
    QVERIFY2(m.hasMatch(), qPrintable(lines.value(0)));
    const int n = m.captured(1).toInt();
    QVERIFY2(lines.size() >= n + 1, r.out.left(400).constData());
    if (n == 0)
        QVERIFY2(lines.size() >= 2 && !lines[1].trimmed().isEmpty(),
                 qPrintable("0 legal moves and no reason line: " + QString::fromUtf8(r.out)));
}

namespace {

// A help row: `entries` must each start a line of the help (an option, a positional or a command as
// CLI11 lists them), `texts` (choices, defaults) appear anywhere.
void helpRow(const QString& command, const QStringList& entries, const QStringList& texts = {})
{
    QTest::newRow(qPrintable(command.isEmpty() ? "sassx-cli" : command)) << command << entries << texts;
}

} // namespace

void TestCli::help_data()
{
    QTest::addColumn<QString>("command"); // empty: sassx-cli itself
    QTest::addColumn<QStringList>("entries");
    QTest::addColumn<QStringList>("texts");
    helpRow("", {"info", "annotate", "legal", "move", "variants", "diff", "triton-export", "triton-restore",
                 "bench", "stalls", "search", "tune", "help"});
    const QStringList workspace = {"--arch", "--kernel", "--keep-stale-line-info"};
    const QStringList evaluator = {"--backend",    "--gpus",     "--worker",         "--input-sets",
                                   "--input-seed", "--l2-flush", "--metrics-backend"};
    helpRow("info", {"FILE", "--arch", "--json", "-h,--help"}, {"sm_90"});
    helpRow("annotate", QStringList{"FILE", "--json", "-o"} + workspace);
    helpRow("legal",
            QStringList{"FILE", "--all", "--control", "--reschedule", "--max-distance", "--json"} + workspace,
            {"{yield,reuse,stall,all}", "=32"});
    helpRow("move",
            QStringList{"FILE", "--move", "--edit", "--pattern", "--repair", "--reschedule",
                        "--minimal-stalls", "-o"} +
                workspace,
            {"FROM:TO", "REQUIRED"});
    helpRow(
        "variants",
        QStringList{"FILE", "--count", "--seed", "--rule", "--max-edits", "--memory-only", "--replay", "-o"} +
            workspace,
        {"{sassx,sip,stalls,yield,control,rescheduled,derived}", "=100"});
    helpRow("diff", QStringList{"A", "B", "--format", "--context", "-o"} + workspace,
            {"{text,json,html}", "=3"});
    helpRow("triton-export", {"ENTRY_DIR", "--cubin", "--kernel"});
    helpRow("triton-restore", {"ENTRY_DIR"});
    helpRow("bench",
            QStringList{"SPEC.json", "--cubin", "--seed", "--screen", "--rounds", "--processes", "--metrics",
                        "--stalls", "--json", "--arch", "--keep-stale-line-info"} +
                evaluator,
            {"{auto,gpu,estimate}=gpu", "{auto,cupti,ncu}"});
    helpRow("stalls",
            QStringList{"SPEC.json", "--cubin", "--period", "--top", "--json", "--arch"} + evaluator,
            {"=auto"});
    helpRow("search",
            QStringList{"SPEC.json",
                        "-o",
                        "--algo",
                        "--margin",
                        "--preset",
                        "--space",
                        "--budget-evals",
                        "--budget-time",
                        "--seed",
                        "--resume",
                        "--json",
                        "--no-list-seed",
                        "--no-restart",
                        "--ppo-config",
                        "--policy",
                        "--screen",
                        "--rounds",
                        "--final-rounds",
                        "--final-processes",
                        "--checkpoint-every",
                        "--per-gpu",
                        "--no-verify",
                        "--guide",
                        "--stalls",
                        "--sample-best",
                        "--arch"} +
                evaluator,
            {"{climb,anneal,greedy,random,listsched,ppo}=climb",
             "{auto,mem,all,yield,all+control,rescheduled}=auto", "{auto,gpu,estimate}=auto", "=100"});
    helpRow("tune",
            QStringList{"DIR",          "--db",           "--out",         "--algo",
                        "--space",      "--budget-evals", "--budget-time", "--total-time",
                        "--seed",       "--kernels",      "--jobs",        "--checkpoint-every",
                        "--task-index", "--report-only",  "--json",        "--write-back",
                        "--restore",    "--export",       "--launcher",    "--partition",
                        "--gres",       "--slurm-time",   "--slurm-arg"} +
                evaluator,
            {"{climb,anneal,greedy,random,listsched,ppo}=climb", "{local,slurm}=local",
             "{auto,gpu,estimate}=auto"});
}

// Every command answers --help (and `sassx-cli help COMMAND` the same) on stdout with exit 0, listing
// each of its options.
void TestCli::help()
{
    QFETCH(QString, command);
    QFETCH(QStringList, entries);
    QFETCH(QStringList, texts);
    const QStringList args = command.isEmpty() ? QStringList{"--help"} : QStringList{command, "--help"};
    const CliRun r = runCli(args);
    QVERIFY2(r.ok() && r.err.isEmpty() && !r.out.isEmpty(), qPrintable(r.describe()));
    const QString text = QString::fromUtf8(r.out);
    for (const QString& e : entries) {
        const QRegularExpression line("^\\s+" + QRegularExpression::escape(e) + "(\\s|=|$)",
                                      QRegularExpression::MultilineOption);
        QVERIFY2(line.match(text).hasMatch(), qPrintable("no line for " + e + " in\n" + text));
    }
    for (const QString& t : texts)
        QVERIFY2(text.contains(t), qPrintable("'" + t + "' missing from\n" + text));
    const CliRun viaHelp = runCli(command.isEmpty() ? QStringList{"help"} : QStringList{"help", command});
    QVERIFY2(viaHelp.ok() && viaHelp.err.isEmpty(), qPrintable(viaHelp.describe()));
    QCOMPARE(viaHelp.out, r.out);
}

// No command: the list of commands on stderr, nothing on stdout, exit 1.
void TestCli::noCommand()
{
    const CliRun r = runCli({});
    QVERIFY2(!r.crashed && !r.timedOut && r.exitCode == 1, qPrintable(r.describe()));
    QVERIFY2(r.out.isEmpty(), qPrintable(r.describe()));
    QVERIFY2(r.err.contains("Usage") && r.err.contains("search"), qPrintable(r.describe()));
}

void TestCli::inlineValues_data()
{
    QTest::addColumn<QStringList>("given");
    QTest::addColumn<QStringList>("same"); // what `given` must print exactly like
    QTest::newRow("annotate --kernel=rmsnorm")
        << QStringList{"annotate", "{rmsnorm}", "--kernel=rmsnorm", "--json"}
        << QStringList{"annotate", "{rmsnorm}", "--kernel", "rmsnorm", "--json"};
    QTest::newRow("legal --control=stall")
        << QStringList{"legal", "{rmsnorm}", "--control=stall", "--json"}
        << QStringList{"legal", "{rmsnorm}", "--control", "stall", "--json"};
    // A single-value option given twice: the last one counts.
    QTest::newRow("legal --control twice")
        << QStringList{"legal", "{rmsnorm}", "--control", "yield", "--control", "stall", "--json"}
        << QStringList{"legal", "{rmsnorm}", "--control", "stall", "--json"};
    // Whole numbers are decimal: a leading zero is not octal (010 moves ten positions at most, not 8).
    QTest::newRow("legal --max-distance 010")
        << QStringList{"legal", "{rmsnorm}", "--reschedule", "--max-distance", "010", "--json"}
        << QStringList{"legal", "{rmsnorm}", "--reschedule", "--max-distance", "10", "--json"};
}

// --name=value reads like --name value.
void TestCli::inlineValues()
{
    QFETCH(QStringList, given);
    QFETCH(QStringList, same);
    QString missing;
    given = expand(given, &missing);
    same = expand(same, &missing);
    if (!missing.isEmpty()) QSKIP(qPrintable("needs {" + missing + "}: a sample was not built"));
    const CliRun& a = cachedRun(given);
    const CliRun& b = cachedRun(same);
    QVERIFY2(a.ok(), qPrintable(a.describe()));
    QVERIFY2(b.ok(), qPrintable(b.describe()));
    QCOMPARE(a.out, b.out);
}
