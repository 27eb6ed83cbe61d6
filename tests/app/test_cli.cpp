// The fixture: paths of the samples, broken inputs in a temporary directory, and rmsnorm's annotation
// and legal moves, from which the moves the tests use are chosen.
#include "test_cli.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

#include <cstdlib>

#include <sys/stat.h>

QString TestCli::sample(const QString& stem) const
{
    const QString p = m_samples + "/" + stem + ".sm_90.cubin";
    return QFileInfo::exists(p) ? p : QString();
}

const CliRun& TestCli::cachedRun(const QStringList& args) const
{
    auto it = m_runs.find(args);
    if (it == m_runs.end()) it = m_runs.insert(args, runCli(args));
    return *it;
}

QString TestCli::kernelOf(const QString& stem) const
{
    QString error;
    const QJsonObject spec = parseObject(readBytes(m_samples + "/" + stem + ".launch.json"), &error);
    return spec.value("kernel").toString(stem);
}

QStringList TestCli::expand(const QStringList& args, QString* missing) const
{
    static const QRegularExpression var(R"(\{(\w+)\})");
    QStringList out;
    for (QString a : args) {
        for (auto it = var.globalMatch(a); it.hasNext();) {
            const auto m = it.next();
            if (m_vars.value(m.captured(1)).isEmpty()) *missing = m.captured(1);
        }
        for (auto k = m_vars.begin(); k != m_vars.end(); ++k)
            a.replace("{" + k.key() + "}", k.value());
        out << a;
    }
    return out;
}

// The first line says why, in one sentence; only `move` adds "  also: " lines (further hazards).
QString TestCli::oneLineError(const CliRun& r, const QString& reason)
{
    const QStringList lines = r.errLines();
    if (lines.isEmpty()) return "nothing on stderr";
    if (!lines[0].startsWith("sassx-cli: ")) return "stderr does not start with 'sassx-cli: '";
    for (int i = 1; i < lines.size(); ++i)
        if (!lines[i].startsWith("  also: "))
            return QStringLiteral("%1 lines on stderr, expected one").arg(lines.size());
    if (!reason.isEmpty() && !lines[0].contains(reason, Qt::CaseInsensitive))
        return QStringLiteral("the error does not mention '%1'").arg(reason);
    return {};
}

bool TestCli::makeTritonEntry(const QString& dir, const QString& cubin, const QString& kernel) const
{
    if (!QDir().mkpath(dir)) return false;
    const QByteArray bytes = readBytes(cubin);
    const QJsonObject target{{"backend", "cuda"}, {"arch", 90}, {"warp_size", 32}};
    const QJsonObject meta{{"hash", "0123abcd"}, {"target", target}, {"num_warps", 4}, {"num_ctas", 1},
                           {"num_stages", 3},    {"shared", 0},      {"name", kernel}};
    const QJsonObject children{{kernel + ".cubin", dir + "/" + kernel + ".cubin"},
                               {kernel + ".json", dir + "/" + kernel + ".json"}};
    return !bytes.isEmpty() && writeBytes(dir + "/" + kernel + ".cubin", bytes) &&
           writeBytes(dir + "/" + kernel + ".json", QJsonDocument(meta).toJson()) &&
           writeBytes(dir + "/" + kernel + ".ptx", "// ptx\n") &&
           writeBytes(dir + "/__grp__" + kernel + ".json",
                      QJsonDocument(QJsonObject{{"child_paths", children}}).toJson());
}

QJsonArray TestCli::legalMoves(const QString& cubin, QString* error) const
{
    const CliRun& r = cachedRun({"legal", cubin, "--all", "--json"});
    if (!r.ok()) {
        *error = r.describe();
        return {};
    }
    return parseObject(r.out, error).value("moves").toArray();
}

QPair<int, int> TestCli::pickMove(const QJsonArray& moves, const QJsonArray& instructions)
{
    QPair<int, int> best{-1, -1};
    for (const QJsonValue& v : moves) {
        const int f = v["from"].toInt(), t = v["to"].toInt();
        if (f >= instructions.size() || t >= instructions.size()) continue;
        // A NOP among NOPs moves nothing that a diff or a byte comparison could see.
        if (instructionWords(instructions.at(f).toObject()) ==
            instructionWords(instructions.at(t).toObject()))
            continue;
        if (best.first < 0 || std::abs(f - t) > std::abs(best.first - best.second)) best = {f, t};
    }
    return best;
}

bool TestCli::ensureMoved(QString* error)
{
    if (!m_moved.isEmpty()) return true;
    const QString out = tmp("rmsnorm.moved.cubin");
    const CliRun r =
        runCli({"move", m_vars["rmsnorm"], "--kernel", "rmsnorm", "--move", m_vars["legal"], "-o", out});
    if (!r.ok() || !QFileInfo::exists(out)) {
        *error = r.describe();
        return false;
    }
    if (!r.errLines().value(0).startsWith("wrote " + out)) {
        *error = "move did not say what it wrote: " + r.describe();
        return false;
    }
    m_moved = out;
    return true;
}

void TestCli::initTestCase()
{
    QVERIFY2(QFileInfo(SASSX_CLI).isExecutable(), SASSX_CLI " is not built");
    QVERIFY(m_tmp.isValid());
    m_samples = qEnvironmentVariable("SASSX_SAMPLES_DIR_OVERRIDE", SASSX_SAMPLES_DIR); // as sampleCubins()
    m_vars["tmp"] = m_tmp.path();
    m_vars["missing"] = tmp("no_such_file.cubin");
    m_vars["notelf"] = tmp("not_elf.cubin");
    QVERIFY(writeBytes(m_vars["notelf"], QByteArray("this is a text file, not an ELF cubin\n").repeated(8)));
    // A FIFO named like a cubin: opening it for reading would block until a writer came.
    m_vars["fifo"] = tmp("fifo.cubin");
    QVERIFY(::mkfifo(m_vars["fifo"].toLocal8Bit().constData(), 0600) == 0);
    m_vars["badjson"] = tmp("invalid.json");
    QVERIFY(writeBytes(m_vars["badjson"], "{\"name\": \"rmsnorm\", \"kernel\": \n"));
    for (const QString& stem : QStringList{"rmsnorm", "sgemm_leakyrelu", "attention_fwd", "gemm_leakyrelu"})
        m_vars[stem] = sample(stem);

    const QString rmsnorm = m_vars["rmsnorm"];
    if (rmsnorm.isEmpty()) return; // rows that need it skip
    m_vars["truncated"] = tmp("truncated.cubin");
    QVERIFY(writeBytes(m_vars["truncated"], readBytes(rmsnorm).left(100)));

    const CliRun& ann = cachedRun({"annotate", rmsnorm, "--json"});
    if (!ann.ok() && ann.err.contains("nvdisasm")) QSKIP(qPrintable("no nvdisasm: " + ann.describe()));
    QVERIFY2(ann.ok(), qPrintable(ann.describe()));
    QString error;
    const QJsonObject a = parseObject(ann.out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    m_rmsInstructions = a.value("instructions").toArray();
    m_rmsBlocks = a.value("blocks").toArray();
    QVERIFY(m_rmsInstructions.size() > 16);
    m_rmsLegalAll = legalMoves(rmsnorm, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    chooseRmsnormMoves();
    qInfo("rmsnorm: legal move %s, across a wall %s, out of a block %s", qPrintable(m_vars["legal"]),
          qPrintable(m_vars["wall"]), qPrintable(m_vars["crossblock"]));
    writeSpecVariants(rmsnorm);
    QVERIFY(makeTritonEntry(tmp("entry_nobackup"), rmsnorm, "rmsnorm"));
    QVERIFY(makeTritonEntry(tmp("entry_scratch"), rmsnorm, "rmsnorm"));
    m_vars["entry_nobackup"] = tmp("entry_nobackup");
    m_vars["entry_scratch"] = tmp("entry_scratch");
}

// {legal}: the listed move that goes furthest and changes bytes; {wall}: a move that crosses (or
// moves) a wall such as BAR or EXIT inside one block; {crossblock}: block 1's first instruction into
// block 0.
void TestCli::chooseRmsnormMoves()
{
    QSet<QPair<int, int>> listed;
    for (const QJsonValue& v : m_rmsLegalAll)
        listed.insert({v["from"].toInt(), v["to"].toInt()});
    if (const auto m = pickMove(m_rmsLegalAll, m_rmsInstructions); m.first >= 0) {
        m_from = quint32(m.first);
        m_to = quint32(m.second);
        m_vars["legal"] = QStringLiteral("%1:%2").arg(m_from).arg(m_to);
    }
    auto blockOf = [&](int i) { return m_rmsInstructions.at(i)["block"].toInt(); };
    auto isWall = [&](int i) { return m_rmsInstructions.at(i)["wall"].toBool(); };
    const int n = int(m_rmsInstructions.size());
    // First choice: an ordinary instruction moved from just above a wall to just below it; else the
    // wall itself one step up.
    QPair<int, int> across{-1, -1}, itself{-1, -1};
    for (int w = 1; w + 1 < n; ++w) {
        if (!isWall(w) || blockOf(w - 1) != blockOf(w)) continue;
        const QPair<int, int> a{w - 1, w + 1}, b{w, w - 1};
        if (across.first < 0 && blockOf(w + 1) == blockOf(w) && !isWall(w - 1) && !listed.contains(a))
            across = a;
        if (itself.first < 0 && !listed.contains(b)) itself = b;
    }
    const QPair<int, int> wall = across.first >= 0 ? across : itself;
    if (wall.first >= 0) m_vars["wall"] = QStringLiteral("%1:%2").arg(wall.first).arg(wall.second);
    if (m_rmsBlocks.size() > 1)
        m_vars["crossblock"] = QStringLiteral("%1:%2")
                                   .arg(m_rmsBlocks.at(1)["first"].toInt())
                                   .arg(m_rmsBlocks.at(0)["first"].toInt());
}

// Launch specs for bench: rmsnorm's own, and broken copies of it (cubin made absolute).
void TestCli::writeSpecVariants(const QString& rmsnorm)
{
    const QString specPath = m_samples + "/rmsnorm.launch.json";
    QString error;
    QJsonObject spec = parseObject(readBytes(specPath), &error);
    if (!error.isEmpty()) return;
    m_vars["spec"] = specPath;
    spec["cubin"] = rmsnorm;
    QJsonObject noParam = spec;
    QJsonArray params = noParam["params"].toArray();
    params.removeLast();
    noParam["params"] = params;
    QJsonObject noCubin = spec;
    noCubin["cubin"] = m_vars["missing"];
    QJsonObject noKernel = spec;
    noKernel["kernel"] = "nope";
    const QList<QPair<QString, QJsonObject>> files = {
        {"spec_noparam", noParam}, {"spec_nocubin", noCubin}, {"spec_nokernel", noKernel}};
    for (const auto& [name, j] : files) {
        m_vars[name] = tmp(name + ".launch.json");
        QVERIFY(writeBytes(m_vars[name], QJsonDocument(j).toJson()));
    }
}

QTEST_GUILESS_MAIN(TestCli)
