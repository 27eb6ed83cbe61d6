// The commands that write cubins or read two: move, diff, variants, triton-export/-restore.
#include "test_cli.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QtTest>

// The move writes a cubin that re-opens; the instruction at TO is the one that was at FROM, the ones
// between shift by one, all others stay.
void TestCli::moveRoundTrip()
{
    if (m_vars["legal"].isEmpty()) QSKIP("no rmsnorm sample or no legal move in it");
    QString error;
    QVERIFY2(ensureMoved(&error), qPrintable(error));
    const CliRun info = runCli({"info", m_moved, "--json"});
    QVERIFY2(info.ok(), qPrintable(info.describe()));
    const QJsonObject ij = parseObject(info.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(ij["cubins"][0]["kernels"][0]["instructions"].toInt(), int(m_rmsInstructions.size()));
    const CliRun ann = runCli({"annotate", m_moved, "--json"});
    QVERIFY2(ann.ok(), qPrintable(ann.describe()));
    const QJsonArray after = parseObject(ann.out, &error)["instructions"].toArray();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(after.size(), m_rmsInstructions.size());
    const int from = int(m_from), to = int(m_to);
    for (int p = 0; p < after.size(); ++p) {
        int was = p; // original index of the instruction now at p
        if (p == to)
            was = from;
        else if (from < to && p >= from && p < to)
            was = p + 1;
        else if (to < from && p > to && p <= from)
            was = p - 1;
        const QString got = instructionWords(after[p].toObject());
        QVERIFY2(
            !got.isEmpty() && got == instructionWords(m_rmsInstructions.at(was).toObject()),
            qPrintable(QStringLiteral("position %1 after move %2:%3 holds %4, expected %5 (was %6)")
                           .arg(p)
                           .arg(from)
                           .arg(to)
                           .arg(after[p]["opcode"].toString(), m_rmsInstructions.at(was)["opcode"].toString())
                           .arg(was)));
    }
}

// legal --reschedule lists moves with the control codes they change, each of which move --reschedule
// writes; move without edits derives codes for ptxas' order (unchanged unless --minimal-stalls).
void TestCli::reschedule()
{
    const QString cubin = sample(QStringLiteral("flash_attn_fwd"));
    if (cubin.isEmpty()) QSKIP("no flash_attn_fwd sm_90 sample");
    QString error;
    const CliRun legal = runCli({"legal", cubin, "--reschedule", "--max-distance", "4", "--json"});
    QVERIFY2(legal.ok(), qPrintable(legal.describe()));
    const QJsonObject j = parseObject(legal.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(j["rescheduled"].toBool());
    const QJsonArray moves = j["moves"].toArray();
    QVERIFY(!moves.isEmpty());
    const QJsonObject m = moves.last().toObject();
    QVERIFY(m["control_changed"].isArray());
    const QString spec = QStringLiteral("%1:%2").arg(m["from"].toInt()).arg(m["to"].toInt());
    const CliRun plain = runCli({"move", cubin, "--move", spec, "-o", tmp("plain.cubin")});
    const CliRun derived =
        runCli({"move", cubin, "--move", spec, "--reschedule", "-o", tmp("resched.cubin")});
    QVERIFY2(derived.ok(), qPrintable(derived.describe()));
    QVERIFY(derived.err.contains("derived control codes"));
    QVERIFY(QFileInfo::exists(tmp("resched.cubin")));
    // A move that needed derived codes is refused without them.
    if (!m["control_changed"].toArray().isEmpty()) QCOMPARE(plain.exitCode, 2);
    const CliRun same = runCli({"move", cubin, "--reschedule", "-o", tmp("same.cubin")});
    QVERIFY2(same.ok(), qPrintable(same.describe()));
    QVERIFY(same.err.contains("0 instruction(s) differ"));
    const CliRun minimal =
        runCli({"move", cubin, "--reschedule", "--minimal-stalls", "-o", tmp("min.cubin")});
    QVERIFY2(minimal.ok(), qPrintable(minimal.describe()));
    QVERIFY(!minimal.err.contains(" 0 instruction(s) differ"));
    const CliRun nothing = runCli({"move", cubin, "-o", tmp("nothing.cubin")});
    QVERIFY(!nothing.ok());
    QVERIFY(nothing.err.contains("nothing to do"));
    // At the full distance some order targets are refused; the JSON counts them by refusal, each naming
    // the distance it needs and where that number came from.
    const CliRun full = runCli({"legal", cubin, "--reschedule", "--json"});
    QVERIFY2(full.ok(), qPrintable(full.describe()));
    const QJsonObject refusals = parseObject(full.out, &error)["refusals"].toObject();
    QVERIFY2(!refusals.isEmpty(), qPrintable(full.out.left(400)));
    for (auto it = refusals.begin(); it != refusals.end(); ++it) {
        QVERIFY(it.value().toInt() >= 1);
        QVERIFY2(it.key().contains(QStringLiteral(" needs ")), qPrintable(it.key()));
    }
    const CliRun stalls = runCli({"legal", cubin, "--control", "stall", "--json"});
    QVERIFY2(stalls.ok(), qPrintable(stalls.describe()));
    QVERIFY(!parseObject(stalls.out, &error)["control_edits"].toArray().isEmpty());
}

// move --pattern ffma-interleave writes DeepGEMM's edit: only FFMAs change, each to the other yield bit
// with its Rb flag cleared; ffma-interleave-keep-reuse keeps the flags; an unknown pattern is one line;
// variants --rule control draws yield and reuse edits only.
void TestCli::namedPattern()
{
    const QString cubin = sample(QStringLiteral("sgemm_leakyrelu"));
    if (cubin.isEmpty()) QSKIP("no sgemm_leakyrelu sm_90 sample");
    const CliRun r = runCli({"move", cubin, "--pattern", "ffma-interleave", "-o", tmp("interleave.cubin")});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QVERIFY2(r.err.contains("ffma-interleave: ") && r.err.contains("FFMA run(s)"), r.err.constData());
    QString error;
    const CliRun before = runCli({"annotate", cubin, "--json"});
    const CliRun after = runCli({"annotate", tmp("interleave.cubin"), "--json"});
    QVERIFY2(before.ok() && after.ok(), qPrintable(after.describe()));
    const QJsonArray a = parseObject(before.out, &error)["instructions"].toArray();
    const QJsonArray b = parseObject(after.out, &error)["instructions"].toArray();
    QCOMPARE(a.size(), b.size());
    int changed = 0;
    for (int i = 0; i < a.size(); ++i) {
        const QJsonObject x = a[i].toObject()["control"].toObject(),
                          y = b[i].toObject()["control"].toObject();
        if (x == y) continue;
        ++changed;
        QCOMPARE(a[i].toObject()["opcode"].toString(), QStringLiteral("FFMA"));
        QCOMPARE(y["yield"].toInt(), 1 - x["yield"].toInt());
        QVERIFY(x["reuse"].toInt() & 2);
        QCOMPARE(y["reuse"].toInt(), x["reuse"].toInt() & ~2);
    }
    QVERIFY(changed > 0);
    // The same flips with every flag kept: the flags stay in the words (annotate reads them from the
    // bytes and marks them unprinted), and `move` cites the measured row for each.
    const CliRun kept = runCli(
        {"move", cubin, "--pattern", "ffma-interleave-keep-reuse", "-o", tmp("interleave-kept.cubin")});
    QVERIFY2(kept.ok(), qPrintable(kept.describe()));
    QVERIFY2(kept.err.contains("reuse flags Rb kept") &&
                 kept.err.contains("\"Reuse flags kept under Y0, per class and mask\": FFMA, mask Rb, H200"),
             kept.err.constData());
    const CliRun keptAnn = runCli({"annotate", tmp("interleave-kept.cubin"), "--json"});
    QVERIFY2(keptAnn.ok(), qPrintable(keptAnn.describe()));
    const QJsonArray k = parseObject(keptAnn.out, &error)["instructions"].toArray();
    QCOMPARE(k.size(), a.size());
    int keptFlags = 0;
    for (int i = 0; i < a.size(); ++i) {
        const QJsonObject x = a[i].toObject()["control"].toObject(),
                          y = k[i].toObject()["control"].toObject();
        if (x == y) continue;
        QCOMPARE(y["yield"].toInt(), 0);
        QCOMPARE(y["reuse"].toInt(), x["reuse"].toInt());
        QVERIFY(y["reuse_unprinted"].toBool());
        ++keptFlags;
    }
    QVERIFY(keptFlags > 0);
    const CliRun unknown = runCli({"move", cubin, "--pattern", "zigzag", "-o", tmp("zigzag.cubin")});
    QVERIFY(!unknown.ok());
    QCOMPARE(unknown.errLines().size(), 1);
    QVERIFY(unknown.err.contains("unknown --pattern"));
    const CliRun v =
        runCli({"variants", cubin, "--rule", "control", "--count", "4", "-o", tmp("control.jsonl")});
    QVERIFY2(v.ok(), qPrintable(v.describe()));
    for (const QByteArray& line : readBytes(tmp("control.jsonl")).trimmed().split('\n')) {
        const QJsonObject o = parseObject(line, &error);
        QVERIFY(o["legal"].toBool());
        for (const auto& e : o["edits"].toArray())
            QVERIFY2(!e.toObject().contains("move"), line.constData());
    }
}

// B: "moved" the move's output cubin, "same" the original, "variant" the move as variant JSON.
// --edit I:yield=0 keeps the instruction's reuse flags and I:yield=0,reuse=0 clears them: two distinct
// edits on an FFMA that caches an operand, both legal where the class table allows the mask; a field given
// twice is one line of error.
void TestCli::yieldEditForms()
{
    const QString cubin = sample(QStringLiteral("sgemm_leakyrelu"));
    if (cubin.isEmpty()) QSKIP("no sgemm_leakyrelu sm_90 sample");
    QString error;
    const CliRun ann = runCli({"annotate", cubin, "--json"});
    QVERIFY2(ann.ok(), qPrintable(ann.describe()));
    const QJsonArray a = parseObject(ann.out, &error)["instructions"].toArray();
    int at = -1;
    for (int i = 0; i < a.size() && at < 0; ++i) {
        const QJsonObject c = a[i].toObject()["control"].toObject();
        // Ra alone: measured on FFMA under Y0 (docs/status.md, "Reuse flags kept under Y0, per class and
        // mask").
        if (a[i].toObject()["opcode"].toString() == QStringLiteral("FFMA") && c["yield"].toInt() == 1 &&
            c["reuse"].toInt() == 1 && c["stall"].toInt() >= 1 && c["stall"].toInt() <= 11)
            at = i;
    }
    QVERIFY2(at >= 0, "no FFMA with the Ra flag alone at stall 1-11 in sgemm_leakyrelu");
    const QString index = QString::number(at);
    for (const QString& edit :
         {index + QStringLiteral(":yield=0"), index + QStringLiteral(":yield=0,reuse=0")}) {
        const QString out = tmp(QStringLiteral("edit-%1.cubin").arg(edit.contains(QLatin1Char(',')) ? 2 : 1));
        const CliRun r = runCli({"move", cubin, "--edit", edit, "-o", out});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        const CliRun back = runCli({"annotate", out, "--json"});
        QVERIFY2(back.ok(), qPrintable(back.describe()));
        const QJsonObject c =
            parseObject(back.out, &error)["instructions"].toArray()[at].toObject()["control"].toObject();
        QCOMPARE(c["yield"].toInt(), 0);
        const bool cleared = edit.contains(QStringLiteral("reuse=0"));
        QCOMPARE(c["reuse"].toInt(), cleared ? 0 : 1);
        QCOMPARE(c["reuse_unprinted"].toBool(), !cleared);
        QCOMPARE(r.err.contains("reuse flags Ra kept"), !cleared);
    }
    const CliRun twice = runCli(
        {"move", cubin, "--edit", index + QStringLiteral(":yield=0,yield=1"), "-o", tmp("twice.cubin")});
    QVERIFY(!twice.ok());
    QCOMPARE(twice.errLines().size(), 1);
    QVERIFY(twice.err.contains("given twice"));
}

void TestCli::diff_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("b");
    const char* rows[][2] = {
        {"text", "moved"}, {"json", "moved"}, {"html", "moved"}, {"json", "same"}, {"json", "variant"}};
    for (const auto& [format, b] : rows)
        QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(format, b))) << QString(format) << QString(b);
}

void TestCli::diff()
{
    QFETCH(QString, format);
    QFETCH(QString, b);
    if (m_vars["legal"].isEmpty()) QSKIP("no rmsnorm sample or no legal move in it");
    QString error;
    QVERIFY2(ensureMoved(&error), qPrintable(error));
    QString other = b == "same" ? m_vars["rmsnorm"] : m_moved;
    if (b == "variant") {
        other = tmp("one_move.variant.json");
        const QJsonObject v{{"name", "one-move"},
                            {"kernel", "rmsnorm"},
                            {"edits", QJsonArray{QJsonObject{{"move", QJsonArray{int(m_from), int(m_to)}}}}}};
        QVERIFY(writeBytes(other, QJsonDocument(v).toJson()));
    }
    const CliRun r = runCli({"diff", m_vars["rmsnorm"], other, "--format", format});
    QVERIFY2(r.ok(), qPrintable(r.describe()));
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    const QString moved = m_rmsInstructions.at(int(m_from))["opcode"].toString();
    if (format == "html") {
        QVERIFY(r.out.startsWith("<!DOCTYPE html>"));
        QVERIFY(r.out.trimmed().endsWith("</html>"));
        QVERIFY(r.out.contains("rmsnorm"));
        QVERIFY(r.out.contains(moved.toUtf8()));
        return;
    }
    if (format == "text") {
        QVERIFY2(r.out.contains("rmsnorm") && r.out.contains(moved.toUtf8()), r.out.left(600).constData());
        return;
    }
    const QJsonObject j = parseObject(r.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    error = checkKeys(j, "diff",
                      {{"kernel", QJsonValue::String},
                       {"a", QJsonValue::String},
                       {"b", QJsonValue::String},
                       {"instructions", QJsonValue::Double},
                       {"moved", QJsonValue::Double},
                       {"shifted", QJsonValue::Double},
                       {"controlChanged", QJsonValue::Double},
                       {"entries", QJsonValue::Array}});
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(j["kernel"].toString(), QString("rmsnorm"));
    QCOMPARE(j["instructions"].toInt(), int(m_rmsInstructions.size()));
    const QJsonArray entries = j["entries"].toArray();
    QCOMPARE(entries.size(), m_rmsInstructions.size());
    bool found = false;
    for (const QJsonValue& e : entries) {
        error = checkKeys(e.toObject(), "entry",
                          {{"text", QJsonValue::String},
                           {"from", QJsonValue::Double},
                           {"to", QJsonValue::Double},
                           {"moved", QJsonValue::Bool}});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        found |= e["moved"].toBool() && e["from"].toInt() == int(m_from) && e["to"].toInt() == int(m_to);
    }
    if (b == "same") {
        QCOMPARE(j["moved"].toInt(), 0);
        QCOMPARE(j["controlChanged"].toInt(), 0);
    } else {
        QVERIFY(j["moved"].toInt() >= 1);
        QVERIFY2(found, qPrintable("no moved entry " + m_vars["legal"]));
    }
}

namespace {

// `words` (an annotate --json instruction's raw lo/hi) as the 16 bytes a cubin holds.
QByteArray wordBytes(const QJsonObject& instruction)
{
    QByteArray bytes;
    for (const QJsonValue& half : instruction.value("raw").toArray()) {
        const quint64 v = half.toString().toULongLong(nullptr, 16);
        for (int k = 0; k < 8; ++k)
            bytes.append(char((v >> (8 * k)) & 0xFF));
    }
    return bytes;
}

// The checker's first reason from `move`'s refusal ("sassx-cli: illegal: <reason>").
QString firstRefusal(const CliRun& r)
{
    const QString line = r.errLines().value(0);
    const QString tag = QStringLiteral("illegal: ");
    return line.contains(tag) ? line.mid(line.indexOf(tag) + tag.size()) : QString();
}

} // namespace

// diff judges B's differences with A's checker: an export of a legal move is legal; a cubin with two
// dependent instructions swapped, or a stall of 0 written into a word (which nvdisasm does not even
// decode), is refused with the very sentence `move` refuses the same edit with; a word that is none of
// A's is one line naming it.
void TestCli::diffChecker()
{
    if (m_vars["legal"].isEmpty()) QSKIP("no rmsnorm sample or no legal move in it");
    QString error;
    QVERIFY2(ensureMoved(&error), qPrintable(error));
    const QString rms = m_vars["rmsnorm"];
    const CliRun legal = runCli({"diff", rms, m_moved});
    QVERIFY2(legal.ok(), qPrintable(legal.describe()));
    const QRegularExpression allLegal(QStringLiteral("\\nchecker: (\\d+) of \\1 differences legal\\n$"));
    QVERIFY2(allLegal.match(QString::fromUtf8(legal.out)).hasMatch(), legal.out.right(300).constData());
    QVERIFY(!legal.out.contains("refused"));
    const CliRun legalJson = runCli({"diff", rms, m_moved, "--format", "json"});
    QVERIFY2(legalJson.ok(), qPrintable(legalJson.describe()));
    const QJsonObject lj = parseObject(legalJson.out, &error)["checker"].toObject();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(lj["legal"].toBool(), true);
    QVERIFY(lj["differences"].toInt() >= 1);
    QCOMPARE(lj["legal_differences"].toInt(), lj["differences"].toInt());

    // An instruction that reads the one before it (same block), swapped with it in the bytes.
    int reader = -1;
    for (int i = 1; i < m_rmsInstructions.size() && reader < 0; ++i) {
        const QJsonObject ins = m_rmsInstructions.at(i).toObject();
        if (ins["block"] != m_rmsInstructions.at(i - 1)["block"]) continue;
        for (const QJsonValue& d : ins["deps"].toArray())
            if (d["from"].toInt() == i - 1 && d["kind"].toString() == "raw") reader = i;
    }
    if (reader < 0) QSKIP("no instruction of rmsnorm reads the one before it");
    const QByteArray original = readBytes(rms);
    const QByteArray first = wordBytes(m_rmsInstructions.at(reader - 1).toObject());
    const QByteArray second = wordBytes(m_rmsInstructions.at(reader).toObject());
    const qsizetype at = original.indexOf(first + second);
    QVERIFY2(at >= 0 && original.count(first + second) == 1, "the pair is not once in the cubin");
    QByteArray swapped = original;
    swapped.replace(at, 32, second + first);
    QVERIFY(writeBytes(tmp("swapped.cubin"), swapped));
    const CliRun refusedMove =
        runCli({"move", rms, "--move", QStringLiteral("%1:%2").arg(reader - 1).arg(reader), "-o",
                tmp("refused.cubin")});
    QCOMPARE(refusedMove.exitCode, 2);
    const QString why = firstRefusal(refusedMove);
    QVERIFY2(!why.isEmpty(), qPrintable(refusedMove.describe()));
    const CliRun swappedDiff = runCli({"diff", rms, tmp("swapped.cubin")});
    QVERIFY2(swappedDiff.ok(), qPrintable(swappedDiff.describe()));
    const QString text = QString::fromUtf8(swappedDiff.out);
    QVERIFY2(text.contains(
                 QRegularExpression(QStringLiteral("\\nchecker: 0 of \\d+ differences legal; refused:\\n"))),
             qPrintable(text.right(600)));
    QVERIFY2(text.contains(QStringLiteral(": refused: ") + why), qPrintable(why + "\n" + text.right(900)));
    const CliRun swappedJson = runCli({"diff", rms, tmp("swapped.cubin"), "--format", "json"});
    const QJsonObject sj = parseObject(swappedJson.out, &error)["checker"].toObject();
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(sj["legal"].toBool(), false);
    QVERIFY(sj["differences"].toInt() >= 1);
    QCOMPARE(sj["legal_differences"].toInt(), 0);
    bool reasonFound = false;
    for (const QJsonValue& r : sj["refused"].toArray()) {
        QVERIFY(r["what"].isString() && r["instruction"].isDouble());
        for (const QJsonValue& reason : r["reasons"].toArray())
            reasonFound |= reason.toString() == why;
    }
    QVERIFY2(reasonFound, qPrintable(why));
    const CliRun swappedHtml = runCli({"diff", rms, tmp("swapped.cubin"), "--format", "html"});
    QVERIFY2(swappedHtml.ok(), qPrintable(swappedHtml.describe()));
    QVERIFY(swappedHtml.out.contains("class=\"checker-note\""));
    QVERIFY(swappedHtml.out.contains("differences legal; refused:"));

    // bench measures it as asked and says it is not checked legal (benchEstimate: the legal export
    // gets no note).
    if (!m_vars["spec"].isEmpty()) {
        const CliRun bench =
            runCli({"bench", m_vars["spec"], "--backend", "estimate", "--cubin", tmp("swapped.cubin")});
        QVERIFY2(bench.err.contains("is not checked legal: ") && bench.err.contains(": refused: "),
                 qPrintable(bench.describe()));
    }

    // A stall of 0 where ptxas left another: a word nvdisasm refuses to decode, judged all the same.
    int stalled = -1;
    CliRun refusedEdit;
    for (int i = 0; i < m_rmsInstructions.size() && stalled < 0; ++i) {
        if (m_rmsInstructions.at(i)["control"]["stall"].toInt() == 0) continue;
        refusedEdit =
            runCli({"move", rms, "--edit", QStringLiteral("%1:stall=0").arg(i), "-o", tmp("s0.cubin")});
        if (refusedEdit.exitCode == 2) stalled = i;
    }
    QVERIFY(stalled >= 0);
    const QByteArray word = wordBytes(m_rmsInstructions.at(stalled).toObject());
    QByteArray zeroed = original;
    const qsizetype wordAt = original.indexOf(word);
    QVERIFY(wordAt >= 0 && original.count(word) == 1);
    zeroed[wordAt + 13] = char(zeroed[wordAt + 13] & ~0x1E); // bits 41..44 of the high word: the stall
    QVERIFY(writeBytes(tmp("stall0.cubin"), zeroed));
    const CliRun stallDiff = runCli({"diff", rms, tmp("stall0.cubin")});
    QVERIFY2(stallDiff.ok(), qPrintable(stallDiff.describe()));
    QVERIFY2(stallDiff.out.contains("checker: 0 of 1 differences legal; refused:"),
             stallDiff.out.right(600).constData());
    QVERIFY2(QString::fromUtf8(stallDiff.out).contains(": refused: " + firstRefusal(refusedEdit)),
             qPrintable(firstRefusal(refusedEdit) + "\n" + QString::fromUtf8(stallDiff.out.right(600))));

    // Not the same instructions: one operand bit of one word flipped.
    QByteArray other = original;
    other[wordAt] = char(other[wordAt] ^ 0x01);
    QVERIFY(writeBytes(tmp("other.cubin"), other));
    const CliRun otherDiff = runCli({"diff", rms, tmp("other.cubin")});
    QCOMPARE(otherDiff.exitCode, 1);
    QVERIFY2(otherDiff.errLines().size() == 1 &&
                 otherDiff.err.contains("not a reordering of the same instructions"),
             qPrintable(otherDiff.describe()));
    QVERIFY2(otherDiff.err.contains(
                 QStringLiteral("the word at 0x%1").arg(stalled * 16, 4, 16, QChar('0')).toUtf8()),
             qPrintable(otherDiff.describe()));
}

// 5 variants, one JSON object a line with edits and byte patches; the same seed gives the same file;
// patching the original with a line's patches gives a cubin that opens.
void TestCli::variants()
{
    if (m_vars["rmsnorm"].isEmpty()) QSKIP("rmsnorm.sm_90.cubin was not built");
    const QString rms = m_vars["rmsnorm"];
    const QStringList outs = {tmp("v1a.jsonl"), tmp("v1b.jsonl"), tmp("v2.jsonl")};
    const QStringList seeds = {"1", "1", "2"};
    for (int i = 0; i < 3; ++i) {
        const CliRun r = runCli({"variants", rms, "--count", "5", "--seed", seeds[i], "-o", outs[i]});
        QVERIFY2(r.ok(), qPrintable(r.describe()));
        QVERIFY2(r.errLines().value(0).startsWith("wrote 5 sassx variants of rmsnorm"), r.err.constData());
    }
    const QByteArray text = readBytes(outs[0]);
    QVERIFY(!text.isEmpty());
    QCOMPARE(readBytes(outs[1]), text);
    QVERIFY2(readBytes(outs[2]) != text, "seed 2 gave the same variants as seed 1");
    const QList<QByteArray> lines = text.trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    const QByteArray original = readBytes(rms);
    int patched = 0;
    for (int i = 0; i < lines.size(); ++i) {
        QString error;
        const QJsonObject v = parseObject(lines[i], &error);
        QVERIFY2(error.isEmpty(), qPrintable(QStringLiteral("line %1: %2").arg(i + 1).arg(error)));
        error = checkKeys(v, QStringLiteral("line %1").arg(i + 1),
                          {{"name", QJsonValue::String},
                           {"kernel", QJsonValue::String},
                           {"edits", QJsonValue::Array},
                           {"patches", QJsonValue::Array},
                           {"legal", QJsonValue::Bool}});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(v["kernel"].toString(), QString("rmsnorm"));
        QVERIFY(v["legal"].toBool());
        QVERIFY(!v["edits"].toArray().isEmpty());
        for (const QJsonValue& e : v["edits"].toArray())
            QVERIFY2((e["move"].isArray() && e["move"].toArray().size() == 2) || e["control"].isObject(),
                     lines[i].left(300).constData());
        QByteArray bytes = original;
        for (const QJsonValue& p : v["patches"].toArray()) {
            const QJsonArray pa = p.toArray();
            QVERIFY2(pa.size() == 2 && pa[0].isDouble() && pa[1].isString(), lines[i].left(300).constData());
            const int off = pa[0].toInt();
            const QByteArray hex = QByteArray::fromHex(pa[1].toString().toLatin1());
            QVERIFY(off % 16 == 0 && hex.size() > 0 && hex.size() <= 16 && off + hex.size() <= bytes.size());
            bytes.replace(off, hex.size(), hex);
        }
        if (bytes == original) continue;
        ++patched;
        if (patched > 1) continue; // one rebuilt cubin is enough to show the patches make a cubin
        const QString rebuilt = tmp("variant.cubin");
        QVERIFY(writeBytes(rebuilt, bytes));
        const CliRun a = runCli({"annotate", rebuilt, "--json"});
        QVERIFY2(a.ok(), qPrintable(a.describe()));
    }
    QVERIFY2(patched > 0, "no variant changed a byte");
}

// Export a tuned cubin into a copy of a Triton cache entry, check the backup, refuse another kernel's
// cubin, restore, and refuse a second restore. The entry holds the Triton gemm_leakyrelu capture when
// a move in it is legal, else rmsnorm (as tests/core/rewrite/test_triton_cache.cpp falls back to).
void TestCli::tritonExportRestore()
{
    QString stem = "gemm_leakyrelu", error;
    QString cubin = sample(stem);
    QJsonArray moves = cubin.isEmpty() ? QJsonArray() : legalMoves(cubin, &error);
    if (moves.isEmpty()) {
        stem = "rmsnorm";
        cubin = m_vars["rmsnorm"];
        moves = m_rmsLegalAll;
        qInfo("Triton gemm_leakyrelu has no legal move (or is missing): the entry holds rmsnorm");
    }
    if (cubin.isEmpty() || moves.isEmpty()) QSKIP("no sample with a legal move");
    const QString kernel = kernelOf(stem);
    const CliRun& ann = cachedRun({"annotate", cubin, "--json"});
    QVERIFY2(ann.ok(), qPrintable(ann.describe()));
    const auto picked = pickMove(moves, parseObject(ann.out, &error)["instructions"].toArray());
    if (picked.first < 0) QSKIP(qPrintable("no legal move in " + stem + " changes a byte"));
    const QString move = QStringLiteral("%1:%2").arg(picked.first).arg(picked.second);
    const QString tuned = tmp(stem + ".tuned.cubin");
    const CliRun mv = runCli({"move", cubin, "--kernel", kernel, "--move", move, "-o", tuned});
    QVERIFY2(mv.ok(), qPrintable(mv.describe()));
    const QString entry = tmp("triton_entry_" + stem);
    QVERIFY(makeTritonEntry(entry, cubin, kernel));
    const QString inEntry = entry + "/" + kernel + ".cubin", backup = inEntry + ".sassx-orig";
    const QByteArray original = readBytes(cubin), tunedBytes = readBytes(tuned);
    QVERIFY(original != tunedBytes);

    const CliRun info = runCli({"info", entry, "--json"});
    QVERIFY2(info.ok(), qPrintable(info.describe()));
    QCOMPARE(parseObject(info.out, &error)["kind"].toString(), QString("triton-cache"));

    for (int round = 0; round < 2; ++round) { // a second export keeps the first backup
        const CliRun ex = runCli({"triton-export", entry, "--cubin", tuned});
        QVERIFY2(ex.ok(), qPrintable(ex.describe()));
        QVERIFY2(ex.out.contains("restart"), ex.out.constData());
        QCOMPARE(readBytes(inEntry), tunedBytes);
        QCOMPARE(readBytes(backup), original);
    }
    const QString other = m_vars[stem == "rmsnorm" ? "sgemm_leakyrelu" : "rmsnorm"];
    if (!other.isEmpty()) {
        const CliRun bad = runCli({"triton-export", entry, "--cubin", other});
        QVERIFY2(!bad.ok() && bad.exitCode == 1, qPrintable(bad.describe()));
        QVERIFY2(oneLineError(bad, "").isEmpty(), qPrintable(oneLineError(bad, "") + "\n" + bad.describe()));
        QCOMPARE(readBytes(inEntry), tunedBytes);
    }
    const CliRun restore = runCli({"triton-restore", entry});
    QVERIFY2(restore.ok(), qPrintable(restore.describe()));
    QCOMPARE(readBytes(inEntry), original);
    QVERIFY(!QFileInfo::exists(backup));
    const CliRun again = runCli({"triton-restore", entry});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(oneLineError(again, "no backup").isEmpty(), qPrintable(again.describe()));
}
