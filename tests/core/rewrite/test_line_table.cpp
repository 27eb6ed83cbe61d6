// Line tables follow their instructions: the decoder and encoder against ptxas' own programs, the cubin
// writer against nvdisasm --print-line-info (and -gp, -gi) on the captured Triton cubins and on CUDA
// cubins built here with -lineinfo, and the decoder against hostile bytes.
#include "../sass/test_common.h"
#include "core/rewrite/block_positions.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/legality.h"
#include "core/rewrite/line_table.h"
#include "core/sass/nvdisasm.h"
#include "rewrite_test_util.h"

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

using namespace sassx;

namespace {

const QString kTriton = QStringLiteral(SASSX_SOURCE_DIR "/samples/triton/captured");

struct Loaded
{
    Cubin cubin;
    std::shared_ptr<const KernelAnalysis> analysis;
    const Kernel* kernel = nullptr;
};

std::optional<Loaded> load(const QString& path, const QString& kernel, QString* why)
{
    auto cubin = Cubin::load(path.toStdString());
    if (!cubin) return *why = QString::fromStdString(cubin.message()), std::nullopt;
    auto listing = disassembleKernel(*cubin, kernel.toStdString());
    if (!listing) return *why = QString::fromStdString(listing.message()), std::nullopt;
    Loaded l{std::move(*cubin), KernelAnalysis::build(std::move(*listing)), nullptr};
    l.kernel = l.cubin.findKernel(kernel.toStdString());
    return l;
}

bool hasLineTables(const Cubin& c)
{
    for (const char* s : kLineTableSections)
        if (c.findSection(s) >= 0) return true;
    return false;
}

// What a consumer looks up for each instruction of the kernel: the last row at the last address at or
// before it, with its chain of call sites resolved to their contents (row numbers differ after a
// rewrite, contents must not).
std::vector<QString> resolvedRows(const LineTable& t, const Kernel& k)
{
    std::vector<QString> out(k.codeSize / 16);
    for (const LineSequence& s : t.sequences) {
        if (s.textSection != k.textSection) continue;
        auto describe = [&](const LineRow& r) {
            return QString("file %1 line %2 col %3 stmt %4 fn %5 disc %6")
                .arg(r.file)
                .arg(r.line)
                .arg(r.column)
                .arg(r.isStmt)
                .arg(r.functionName)
                .arg(r.discriminator);
        };
        size_t r = 0;
        for (uint64_t i = 0; i < out.size(); ++i) {
            while (r < s.rows.size() && s.rows[r].address <= i * 16)
                ++r;
            if (r == 0 || i * 16 >= s.endAddress) continue;
            const LineRow* row = &s.rows[r - 1];
            QString text = describe(*row);
            for (int depth = 0; row->context && depth < 64; ++depth) {
                row = &s.rows[row->context - 1];
                text += " <- " + describe(*row);
            }
            out[i] = text;
        }
    }
    return out;
}

// nvdisasm's source annotation of each instruction of the kernel: the block of "//##" lines printed
// last before it. nvdisasm prints a block only where the (file, line) of the row in effect changes, so
// `printed` marks the instructions that got their own.
struct Annotation
{
    std::vector<QString> block;
    std::vector<bool> printed;
};

Result<Annotation> annotate(const std::vector<uint8_t>& cubin, const std::string& option, const Kernel& k)
{
    auto text = runNvdisasm(cubin, {option});
    if (!text) return text.error();
    Annotation out{std::vector<QString>(k.codeSize / 16), std::vector<bool>(k.codeSize / 16)};
    static const QRegularExpression insn(R"(^\s+/\*([0-9a-f]{4,})\*/\s+\S)");
    const QString start = QString::fromStdString(".text." + k.name + ":");
    bool inside = false, lastWasComment = false, fresh = false;
    QString current;
    for (const QString& line : QString::fromStdString(*text).split('\n')) {
        if (!inside) {
            inside = line.trimmed() == start;
            continue;
        }
        if (line.startsWith("//----")) break;
        if (line.trimmed().startsWith("//##")) {
            current = lastWasComment ? current + "\n" + line.trimmed() : line.trimmed();
            lastWasComment = fresh = true;
            continue;
        }
        lastWasComment = false;
        const auto m = insn.match(line);
        if (!m.hasMatch()) continue;
        const uint64_t at = m.captured(1).toULongLong(nullptr, 16);
        if (at % 16 || at / 16 >= out.block.size()) continue;
        out.block[at / 16] = current;
        out.printed[at / 16] = fresh;
        fresh = false;
    }
    if (!inside) return makeError("nvdisasm printed no " + start.toStdString());
    return out;
}

// The innermost location of an -gi block: what --print-line-info shows.
QString innermost(const QString& block)
{
    const QString first = block.section('\n', 0, 0);
    const int at = first.indexOf(" inlined at ");
    return at < 0 ? first : first.left(at);
}

// nvdisasm output of the original cubins, computed once per test run (nvdisasm takes seconds).
Result<Annotation> originalAnnotation(const Cubin& orig, const std::string& option, const Kernel& k)
{
    static std::map<std::pair<std::vector<uint8_t>, std::string>, Annotation> cache;
    auto key = std::make_pair(orig.bytes(), option + "\n" + k.name);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    auto a = annotate(orig.bytes(), option, k);
    if (a) cache.emplace(std::move(key), *a);
    return a;
}

// Per position p, what the written cubin shows must be what the original showed for the instruction
// now at p, and the other kernels' rows must stay. The rows themselves (decoded by sassx) must match
// exactly, inlining chains included. nvdisasm: --print-line-info-ptx and the innermost line of
// --print-line-info-inline (= --print-line-info) match at every position; whole -gi blocks where both
// files print one (a chain that changes on an unchanged line is not printed by nvdisasm).
// Returns "" when all hold.
QString verifyLines(const Cubin& orig, const Kernel& k, const IndexVector<Position, InstrId>& order,
                    const std::vector<uint8_t>& out)
{
    auto parsed = Cubin::parse(out);
    if (!parsed) return "written cubin does not parse: " + QString::fromStdString(parsed.message());
    for (const char* name : kLineTableSections) {
        const int a = orig.findSection(name), b = parsed->findSection(name);
        if (a < 0) continue;
        auto before = decodeLineTable(orig, a), after = decodeLineTable(*parsed, b);
        if (!before || !after)
            return QString("%1 does not decode: %2")
                .arg(name, QString::fromStdString(before ? after.message() : before.message()));
        const auto x = resolvedRows(*before, k), y = resolvedRows(*after, k);
        for (Position p : order.indices())
            if (y[p.value()] != x[order[p].value()])
                return QString("%1 at position %2 (0x%3, was 0x%4): %5, expected %6")
                    .arg(name)
                    .arg(p.value())
                    .arg(p.value() * 16, 0, 16)
                    .arg(order[p].value() * 16, 0, 16)
                    .arg(y[p.value()], x[order[p].value()]);
        for (const Kernel& other : orig.kernels()) {
            if (other.name == k.name) continue;
            if (resolvedRows(*before, other) != resolvedRows(*after, other))
                return QString("%1: the rows of %2 changed").arg(name, QString::fromStdString(other.name));
        }
    }
    for (const char* option : {"--print-line-info-inline", "--print-line-info-ptx"}) {
        auto before = originalAnnotation(orig, option, k);
        auto after = annotate(out, option, k);
        if (!before || !after)
            return QString("nvdisasm %1: %2")
                .arg(option, QString::fromStdString(before ? after.message() : before.message()));
        const bool inlineView = std::string(option) == "--print-line-info-inline";
        for (Position p : order.indices()) {
            const uint32_t was = order[p].value(), now = p.value();
            const QString& want = before->block[was];
            const QString& have = after->block[now];
            const bool same = inlineView ? innermost(have) == innermost(want) &&
                                               (!after->printed[now] || !before->printed[was] || have == want)
                                         : have == want;
            if (!same)
                return QString("nvdisasm %1 at 0x%2 (was 0x%3): \"%4\", expected \"%5\"")
                    .arg(option)
                    .arg(now * 16, 0, 16)
                    .arg(was * 16, 0, 16)
                    .arg(have, want);
        }
    }
    return {};
}

// Bytes outside patchedRanges are identical; past the original end only a grown line section may lie.
QString verifyBytes(const Cubin& orig, const Kernel& k, const std::vector<uint8_t>& out)
{
    const auto& in = orig.bytes();
    if (out.size() < in.size()) return "the file shrank";
    std::vector<char> patched(in.size(), 0);
    for (const auto& r : patchedRanges(orig, k))
        std::fill(patched.begin() + int64_t(r.fileOffset), patched.begin() + int64_t(r.fileOffset + r.size),
                  1);
    for (size_t i = 0; i < in.size(); ++i)
        if (!patched[i] && out[i] != in[i])
            return QString("byte 0x%1 outside the patched ranges changed").arg(i, 0, 16);
    if (out.size() == in.size()) return {};
    auto parsed = Cubin::parse(out);
    if (!parsed) return "grown cubin does not parse";
    uint64_t covered = in.size();
    for (const ElfSection& s : parsed->sections())
        if (s.offset >= in.size()) covered = std::max(covered, s.offset + s.size);
    return covered == out.size() ? QString() : QString("appended bytes that no section owns");
}

const QString kNoReadelf = QStringLiteral("readelf not installed");

// readelf --debug-dump=decodedline of the cubin lists the same rows (line @ address, every sequence of
// .debug_line) as sassx decodes. Returns "" when it does.
QString readelfAgrees(const std::vector<uint8_t>& bytes)
{
    const QString readelf = QStandardPaths::findExecutable("readelf");
    if (readelf.isEmpty()) return kNoReadelf;
    QTemporaryDir dir;
    const QString file = dir.filePath("written.cubin");
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly)) return "cannot write " + file;
    f.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size()));
    f.close();
    QProcess p;
    p.start(readelf, {"--debug-dump=decodedline", file});
    if (!p.waitForFinished(60000)) return "readelf did not finish";
    // One line per row: "attention.py  <line>  <address>  [view]  x" (address 0 prints as 0).
    static const QRegularExpression row(R"(^\S+\s+(\d+)\s+(0x[0-9a-f]+|0)\s)");
    QStringList seen, mine;
    for (const QString& line : QString::fromUtf8(p.readAllStandardOutput()).split('\n'))
        if (const auto m = row.match(line); m.hasMatch())
            seen << QString("%1@%2").arg(m.captured(1)).arg(m.captured(2).toULongLong(nullptr, 0), 0, 16);
    auto parsed = Cubin::parse(bytes);
    if (!parsed) return "does not parse";
    auto t = decodeLineTable(*parsed, parsed->findSection(".debug_line"));
    if (!t) return QString::fromStdString(t.message());
    for (const LineSequence& q : t->sequences)
        for (const LineRow& r : q.rows)
            mine << QString("%1@%2").arg(r.line).arg(r.address, 0, 16);
    return seen == mine ? QString()
                        : QString("readelf lists %1 rows, sassx decodes %2 (or they differ)")
                              .arg(seen.size())
                              .arg(mine.size());
}

// As samples/CMakeLists.txt finds it: $CUDA_HOME/bin, /usr/local/cuda/bin, then PATH.
QString findNvcc()
{
    QStringList candidates;
    if (qEnvironmentVariableIsSet("CUDA_HOME")) candidates << qEnvironmentVariable("CUDA_HOME") + "/bin/nvcc";
    candidates << QStringLiteral("/usr/local/cuda/bin/nvcc");
    for (const QString& c : candidates)
        if (QFileInfo(c).isExecutable()) return c;
    return QStandardPaths::findExecutable("nvcc");
}

} // namespace

class TestLineTable : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QStringList m_lineInfoCubins; // built here with -lineinfo
    QString m_nvccProblem;

    QStringList tritonCubins() const
    {
        QStringList out;
        for (const QString& f : QDir(kTriton).entryList({"*.sm_90.cubin"}, QDir::Files, QDir::Name))
            out << kTriton + "/" + f;
        return out;
    }
    // The captured Triton cubins, the ones built here with -lineinfo, and any built sample that carries a
    // line table (none as samples/CMakeLists.txt builds them today: no -lineinfo).
    QStringList lineTableCubins() const
    {
        QStringList out = tritonCubins() + m_lineInfoCubins;
        for (const QString& p : sampleCubins()) {
            if (tritonCubins().contains(kTriton + "/" + QFileInfo(p).fileName())) continue; // copied there
            auto c = Cubin::load(p.toStdString());
            if (c && hasLineTables(*c)) out << p;
        }
        return out;
    }

    void kernelRows()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kernel");
        for (const QString& p : lineTableCubins()) {
            auto c = Cubin::load(p.toStdString());
            QVERIFY2(c.ok(), qPrintable(p));
            for (const Kernel& k : c->kernels())
                QTest::newRow(qPrintable(QFileInfo(p).fileName() + ":" + QString::fromStdString(k.name)))
                    << p << QString::fromStdString(k.name);
        }
    }

private slots:
    void initTestCase()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed: run ./run.sh to install the pinned wheel");
        QVERIFY2(tritonCubins().size() >= 2, qPrintable("no Triton cubins in " + kTriton));
        const QString nvcc = findNvcc();
        if (nvcc.isEmpty()) {
            m_nvccProblem = "nvcc not found: the -lineinfo CUDA cubins are not built";
            return;
        }
        const QStringList sources{QStringLiteral(SASSX_TESTDATA_DIR "/line_info_two_kernels.cu"),
                                  QStringLiteral(SASSX_SOURCE_DIR "/samples/cuda/rmsnorm.cu")};
        for (const QString& src : sources) {
            const QString out = m_dir.filePath(QFileInfo(src).completeBaseName() + ".lineinfo.sm_90.cubin");
            QProcess p;
            p.start(nvcc, {"-cubin", "-O3", "-lineinfo", "-arch=sm_90", "-o", out, src});
            QVERIFY2(p.waitForFinished(180000) && p.exitCode() == 0,
                     qPrintable("nvcc " + src + ": " + p.readAllStandardError()));
            m_lineInfoCubins << out;
        }
    }

    // Facts the design rests on (line_table.h): both tables are DWARF 2 over SASS offsets, one sequence
    // per kernel from 0 to the end of .text.K, opened by a relocated DW_LNE_set_address.
    void ptxasFacts()
    {
        for (const QString& p : lineTableCubins()) {
            auto c = Cubin::load(p.toStdString());
            QVERIFY(c.ok());
            for (const char* name : kLineTableSections) {
                const int sec = c->findSection(name);
                QVERIFY2(sec >= 0, qPrintable(p + " has no " + name));
                auto t = decodeLineTable(*c, sec);
                QVERIFY2(t.ok(), t.ok() ? "" : t.message().c_str());
                QCOMPARE(t->units.size(), size_t(1));
                QCOMPARE(t->units[0].version, uint16_t(2));
                QCOMPARE(t->sequences.size(), c->kernels().size());
                for (const Kernel& k : c->kernels()) {
                    auto cover = lineTableCoverage(*c, sec, k);
                    QVERIFY2(cover.ok(), cover.ok() ? "" : cover.message().c_str());
                    QVERIFY(cover->present);
                    QCOMPARE(cover->first, 0u);
                    QCOMPARE(uint64_t(cover->end) * 16, k.codeSize);
                }
            }
        }
    }

    void encoderReproducesPtxas_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("section");
        for (const QString& p : lineTableCubins())
            for (const char* s : kLineTableSections)
                QTest::newRow(qPrintable(QFileInfo(p).fileName() + ":" + s)) << p << QString(s);
    }

    // Decoding then encoding every sequence gives ptxas' bytes back: the encoder chooses opcodes as
    // ptxas does, so a rewrite changes only what moved.
    void encoderReproducesPtxas()
    {
        QFETCH(QString, path);
        QFETCH(QString, section);
        auto c = Cubin::load(path.toStdString());
        QVERIFY(c.ok());
        const int sec = c->findSection(section.toStdString());
        const auto data = c->sectionData(sec);
        auto t = decodeLineProgram(data, section.toStdString());
        QVERIFY2(t.ok(), t.ok() ? "" : t.message().c_str());
        for (const LineSequence& s : t->sequences) {
            QVERIFY2(s.unsupported.empty(), s.unsupported.c_str());
            QVERIFY(s.prologueEnd > s.begin);
            auto body = encodeLineRows(t->units[s.unit], s.rows, s.startAddress, s.endAddress,
                                       {s.endContext, s.endFunctionName});
            QVERIFY2(body.ok(), body.ok() ? "" : body.message().c_str());
            QVERIFY2(std::equal(body->begin(), body->end(), data.begin() + int64_t(s.prologueEnd),
                                data.begin() + int64_t(s.end)) &&
                         body->size() == s.end - s.prologueEnd,
                     qPrintable(QString("sequence at 0x%1 re-encodes differently").arg(s.begin, 0, 16)));
        }
    }

    void identityIsByteIdentical_data() { kernelRows(); }

    void identityIsByteIdentical()
    {
        QFETCH(QString, path);
        QFETCH(QString, kernel);
        QString why;
        auto l = load(path, kernel, &why);
        QVERIFY2(l, qPrintable(why));
        const Schedule id = Schedule::identity(*l->analysis);
        for (const char* name : kLineTableSections) {
            const int sec = l->cubin.findSection(name);
            auto edit = rewriteLineTable(l->cubin, sec, *l->kernel, id.order);
            QVERIFY2(edit.ok(), edit.ok() ? "" : edit.message().c_str());
            const auto data = l->cubin.sectionData(sec);
            QVERIFY(std::equal(data.begin(), data.end(), edit->bytes.begin(), edit->bytes.end()));
            QVERIFY(edit->relocationOffsets.empty());
        }
        auto same = writeSchedule(l->cubin, *l->analysis, id);
        QVERIFY2(same.ok(), same.ok() ? "" : same.message().c_str());
        QVERIFY(*same == l->cubin.bytes());
    }

    void legalMoveKeepsSourceLines_data() { kernelRows(); }

    // The checker, built as the workspace builds it (walls from patch_limits with default options), now
    // offers moves in cubins with line tables. A legal move that takes an instruction next to one of
    // another source line is written, and nvdisasm --print-line-info shows every instruction, the moved
    // one included, with the line it showed before.
    void legalMoveKeepsSourceLines()
    {
        QFETCH(QString, path);
        QFETCH(QString, kernel);
        QString why;
        auto l = load(path, kernel, &why);
        QVERIFY2(l, qPrintable(why));
        const KernelAnalysis& a = *l->analysis;
        const PatchLimits limits = patchLimits(l->cubin, *l->kernel);
        QVERIFY2(limits.refuseAll.empty(), limits.refuseAll.c_str());
        LegalityChecker checker(l->analysis);
        std::vector<std::pair<InstrId, std::string>> walls;
        for (const auto& u : unpatchableInstructionsWithReasons(l->cubin, *l->kernel))
            walls.emplace_back(InstrId(u.index), u.reason);
        QVERIFY2(walls.size() < a.listing.instructions.size(), "every instruction is a wall");
        checker.addWalls(walls);
        const Schedule identity = Schedule::identity(a);
        const auto moves = checker.legalMoves(identity, false);
        QVERIFY2(!moves.empty(), "the checker finds no legal move");
        auto table = decodeLineTable(l->cubin, l->cubin.findSection(".debug_line"));
        QVERIFY(table.ok());
        const auto rows = resolvedRows(*table, *l->kernel);
        // The line of the instruction ptxas placed at a position (rows and the annotation before are
        // indexed by original instruction).
        auto was = [&](Position p) { return identity.order[p].value(); };
        // The first legal move whose instruction lands where another source line was.
        auto pick = std::find_if(moves.begin(), moves.end(),
                                 [&](auto m) { return rows[was(m.first)] != rows[was(m.second)]; });
        if (pick == moves.end()) QSKIP("every legal move stays on one source line");
        const auto [from, to] = *pick;
        auto s = applyEdits(a, {Edit::move(from, to)}, [&](Schedule& x) { checker.fixReuse(x); });
        QVERIFY(s.ok());
        auto out = writeSchedule(l->cubin, a, *s);
        QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
        QString problem = verifyBytes(l->cubin, *l->kernel, *out);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        problem = verifyLines(l->cubin, *l->kernel, s->order, *out);
        QVERIFY2(problem.isEmpty(),
                 qPrintable(QString("move %1 -> %2: %3").arg(from.value()).arg(to.value()).arg(problem)));
        auto before = originalAnnotation(l->cubin, "--print-line-info", *l->kernel);
        auto after = annotate(*out, "--print-line-info", *l->kernel);
        QVERIFY(before.ok() && after.ok());
        for (Position p : s->positions())
            QVERIFY2(after->block[p.value()] == before->block[s->order[p].value()],
                     qPrintable(QString("0x%1: %2, expected %3")
                                    .arg(p.value() * 16, 0, 16)
                                    .arg(after->block[p.value()], before->block[s->order[p].value()])));
        // The move shows: another line at `to` than before.
        QVERIFY(after->block[to.value()] != before->block[was(to)]);
        qInfo("move %u -> %u (%s): before, at 0x%04x: %s | after, at 0x%04x: %s (0x%04x showed %s before)",
              from.value(), to.value(), a.listing.instructions[was(from)].text().c_str(), from.value() * 16,
              qPrintable(before->block[was(from)]), to.value() * 16, qPrintable(after->block[to.value()]),
              to.value() * 16, qPrintable(before->block[was(to)]));
    }

    void randomMovesKeepRows_data() { kernelRows(); }

    // Random in-block moves (not necessarily legal: the writer must follow any order) keep every
    // instruction's rows, whether the program comes out shorter (padded), equal, or longer (moved to the
    // end of the file); no byte outside patchedRanges changes.
    void randomMovesKeepRows()
    {
        QFETCH(QString, path);
        QFETCH(QString, kernel);
        QString why;
        auto l = load(path, kernel, &why);
        QVERIFY2(l, qPrintable(why));
        const auto& a = *l->analysis;
        const auto walls = unpatchableInstructions(l->cubin, *l->kernel);
        std::mt19937 rng(qHash(QFileInfo(path).fileName() + kernel));
        int grew = 0, kept = 0;
        for (int v = 0; v < 2; ++v) {
            auto edits = rewrite_test::randomMoves(a, walls, rng, 1 + int(rng() % 60));
            auto s = applyEdits(a, edits);
            QVERIFY(s.ok());
            auto out = writeSchedule(l->cubin, a, *s);
            QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
            (out->size() > l->cubin.bytes().size() ? grew : kept)++;
            QString problem = verifyBytes(l->cubin, *l->kernel, *out);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            problem = verifyLines(l->cubin, *l->kernel, s->order, *out);
            QVERIFY2(problem.isEmpty(), qPrintable(QString("variant %1: %2").arg(v).arg(problem)));
        }
        qInfo("%d variants kept the file size, %d moved a grown line table to the end", kept, grew);
    }

    // A program that needs more bytes than it had moves to the end of the file; readelf decodes the
    // moved section to the same rows as sassx.
    void grownTableMovesToEnd()
    {
        QString why;
        auto l = load(kTriton + "/attention_fwd.sm_90.cubin", "attention_fwd", &why);
        QVERIFY2(l, qPrintable(why));
        const auto& a = *l->analysis;
        // Reversing every block's interior scatters the rows, which needs more opcodes.
        Schedule s = Schedule::identity(a);
        for (const auto& b : a.cfg.blocks)
            if (b.end - b.first > 2)
                std::reverse(s.order.iter(firstPosition(b) + 1), s.order.iter(endPosition(b) - 1));
        auto out = writeSchedule(l->cubin, a, s);
        QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
        QVERIFY(out->size() > l->cubin.bytes().size());
        QString problem = verifyBytes(l->cubin, *l->kernel, *out);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        problem = verifyLines(l->cubin, *l->kernel, s.order, *out);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        auto parsed = Cubin::parse(*out);
        QVERIFY(parsed.ok());
        for (const char* name : kLineTableSections)
            QVERIFY(parsed->sections()[parsed->findSection(name)].offset >= l->cubin.bytes().size());
        problem = readelfAgrees(*out);
        if (problem == kNoReadelf) QSKIP("readelf (binutils) not installed");
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // A program that needs fewer bytes is padded in place (DW_LNS_advance_pc 0 before
    // DW_LNE_end_sequence, or an over-long operand for one byte): the file keeps its size and layout, and
    // nvdisasm and readelf read the padded program.
    void shorterTablePaddedInPlace()
    {
        QString why;
        auto l = load(kTriton + "/attention_fwd.sm_90.cubin", "attention_fwd", &why);
        QVERIFY2(l, qPrintable(why));
        const auto& a = *l->analysis;
        const int sec = l->cubin.findSection(".debug_line");
        const auto data = l->cubin.sectionData(sec);
        // The padding a rewritten section carries: its old body length less what its rows need.
        auto paddingOf = [&](const std::vector<uint8_t>& bytes) -> size_t {
            auto t = decodeLineProgram(bytes, ".debug_line");
            if (!t || t->sequences.size() != 1) return 0;
            const LineSequence& q = t->sequences[0];
            auto body = encodeLineRows(t->units[0], q.rows, q.startAddress, q.endAddress,
                                       {q.endContext, q.endFunctionName});
            return body ? q.end - q.prologueEnd - body->size() : 0;
        };
        std::set<size_t> tried;
        for (const auto& b : a.cfg.blocks)
            for (Position p = firstPosition(b); p + 1 < endPosition(b) && tried.size() < 2; ++p) {
                auto s = applyEdits(a, {Edit::move(p, p + 1)});
                QVERIFY(s.ok());
                auto edit = rewriteLineTable(l->cubin, sec, *l->kernel, s->order);
                QVERIFY(edit.ok());
                if (edit->bytes.size() != data.size()) continue;
                const size_t pad = paddingOf(edit->bytes);
                if (!pad || tried.count(pad == 1) || (pad > 1 && pad < 4)) continue; // one 1-byte, one >= 4
                tried.insert(pad == 1);
                auto out = writeSchedule(l->cubin, a, *s);
                QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
                QCOMPARE(out->size(), l->cubin.bytes().size());
                QString problem = verifyBytes(l->cubin, *l->kernel, *out);
                QVERIFY2(problem.isEmpty(), qPrintable(problem));
                problem = verifyLines(l->cubin, *l->kernel, s->order, *out);
                QVERIFY2(problem.isEmpty(), qPrintable(QString("move %1 -> %2 (padding %3): %4")
                                                           .arg(p.value())
                                                           .arg((p + 1).value())
                                                           .arg(pad)
                                                           .arg(problem)));
                problem = readelfAgrees(*out);
                QVERIFY2(problem.isEmpty() || problem == kNoReadelf, qPrintable(problem));
            }
        QCOMPARE(tried.size(), size_t(2));
    }

    // encodeLineRows pads to any length from 1 byte up and the padded program decodes to the same rows.
    void paddingDecodesToSameRows()
    {
        auto c = Cubin::load((kTriton + "/gemm_leakyrelu.sm_90.cubin").toStdString());
        QVERIFY(c.ok());
        const auto data = c->sectionData(c->findSection(".nv_debug_line_sass"));
        auto t = decodeLineProgram(data, ".nv_debug_line_sass");
        QVERIFY(t.ok());
        const LineSequence& q = t->sequences[0];
        const size_t natural = q.end - q.prologueEnd;
        for (size_t pad = 1; pad <= 9; ++pad) {
            auto body = encodeLineRows(t->units[0], q.rows, q.startAddress, q.endAddress,
                                       {q.endContext, q.endFunctionName}, natural + pad);
            QVERIFY2(body.ok(), body.ok() ? "" : body.message().c_str());
            QCOMPARE(body->size(), natural + pad);
            std::vector<uint8_t> program(data.begin(), data.begin() + int64_t(q.prologueEnd));
            program.insert(program.end(), body->begin(), body->end());
            const uint32_t len = uint32_t(program.size() - 4);
            std::memcpy(program.data(), &len, 4);
            auto back = decodeLineProgram(program, ".nv_debug_line_sass");
            QVERIFY2(back.ok(), back.ok() ? "" : back.message().c_str());
            QVERIFY(back->sequences.size() == 1 && back->sequences[0].rows == q.rows);
            QCOMPARE(back->sequences[0].endAddress, q.endAddress);
        }
        QVERIFY(!encodeLineRows(t->units[0], q.rows, q.startAddress, q.endAddress, {}, natural - 1).ok());
    }

    // Cubins without line tables come out exactly as before: the line options change nothing.
    void noLineTablesUnchanged()
    {
        int checked = 0;
        for (const QString& p : sampleCubins()) {
            auto c = Cubin::load(p.toStdString());
            QVERIFY(c.ok());
            if (hasLineTables(*c)) continue;
            const Kernel& k = c->kernels().front();
            QString why;
            auto l = load(p, QString::fromStdString(k.name), &why);
            QVERIFY2(l, qPrintable(why));
            std::mt19937 rng(qHash(p));
            auto s = applyEdits(
                *l->analysis,
                rewrite_test::randomMoves(*l->analysis, unpatchableInstructions(l->cubin, k), rng, 10));
            QVERIFY(s.ok());
            auto fresh = writeSchedule(l->cubin, *l->analysis, *s);
            auto stale = writeSchedule(l->cubin, *l->analysis, *s, PatchOptions{.keepStaleLineInfo = true});
            QVERIFY(fresh.ok() && stale.ok());
            QVERIFY(*fresh == *stale);
            QCOMPARE(fresh->size(), c->bytes().size());
            ++checked;
        }
        if (!checked) QSKIP("no sample cubin without line tables");
    }

    // Hostile bytes: every truncation of a real program, bad lengths, unknown versions and opcodes, a
    // forward inlining reference. Each gives one line, never a crash; patch_limits and the writer refuse
    // with that line.
    void hostileInput()
    {
        auto c = Cubin::load((kTriton + "/attention_fwd.sm_90.cubin").toStdString());
        QVERIFY(c.ok());
        const int sec = c->findSection(".debug_line");
        const auto data = c->sectionData(sec);
        const std::vector<uint8_t> program(data.begin(), data.end());
        auto oneLine = [](const std::string& m) { return !m.empty() && m.find('\n') == std::string::npos; };
        for (size_t cut = 0; cut < program.size(); ++cut) {
            auto t = decodeLineProgram(std::span(program.data(), cut), ".debug_line");
            if (cut == 0)
                QVERIFY(t.ok() && t->sequences.empty());
            else
                QVERIFY2(!t.ok() && oneLine(t.message()), qPrintable(QString("cut at %1").arg(cut)));
        }
        // An extended opcode whose length runs past the unit (the first one, DW_LNE_set_address).
        const uint64_t program0 = 10 + 145; // unit_length, version, header_length + header (v2)
        std::vector<uint8_t> bad = program;
        QCOMPARE(bad[program0], uint8_t(0));
        bad[program0 + 1] = 0xff, bad[program0 + 2] = 0xff, bad[program0 + 3] = 0x03; // 65535 bytes
        auto t = decodeLineProgram(bad, ".debug_line");
        QVERIFY(!t.ok() && oneLine(t.message()));
        QVERIFY2(t.message().find("runs past") != std::string::npos, t.message().c_str());
        // A standard opcode whose length in the header is not DWARF's: the sequence cannot be rewritten.
        bad = program;
        bad[10 + 5 + 1] = 3; // standard_opcode_lengths[DW_LNS_advance_pc - 1]
        t = decodeLineProgram(bad, ".debug_line");
        if (t.ok())
            QVERIFY(!t->sequences.empty() && oneLine(t->sequences[0].unsupported));
        else
            QVERIFY(oneLine(t.message()));
        // A forward inlining reference, hand-made: set_address 0, 0x90 (row 5, name 0), copy, end.
        std::vector<uint8_t> tiny{0,  0,  0, 0, 2, 0, 16, 0, 0, 0, 1, 1, 0xfb,
                                  14, 10, 0, 1, 1, 1, 1,  0, 0, 0, 1, 0, 0};
        for (uint8_t b : {0, 9, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0x90, 5, 0, 1, 0, 1, 1})
            tiny.push_back(b);
        const uint32_t len = uint32_t(tiny.size() - 4);
        std::memcpy(tiny.data(), &len, 4);
        t = decodeLineProgram(tiny, ".debug_line");
        QVERIFY2(t.ok(), t.ok() ? "" : t.message().c_str());
        QCOMPARE(t->sequences.size(), size_t(1));
        QVERIFY2(t->sequences[0].unsupported.find("does not precede") != std::string::npos,
                 t->sequences[0].unsupported.c_str());

        // In a cubin: an unknown DWARF version in .debug_line stops every move of the kernel, with why.
        std::vector<uint8_t> bytes = c->bytes();
        bytes[c->sections()[sec].offset + 4] = 9;
        auto hostile = Cubin::parse(bytes);
        QVERIFY(hostile.ok());
        const Kernel& k = hostile->kernels().front();
        const PatchLimits limits = patchLimits(*hostile, k);
        QVERIFY2(limits.refuseAll.find("DWARF line table version 9") != std::string::npos,
                 limits.refuseAll.c_str());
        QVERIFY(oneLine(limits.refuseAll));
        QVERIFY(patchLimits(*hostile, k, PatchOptions{.keepStaleLineInfo = true}).refuseAll.empty());
        QString why;
        auto l = load(kTriton + "/attention_fwd.sm_90.cubin", "attention_fwd", &why);
        QVERIFY2(l, qPrintable(why));
        Schedule s = Schedule::identity(*l->analysis);
        const auto& b = l->analysis->cfg.blocks.front();
        QVERIFY(b.end - b.first >= 2);
        std::swap(s.order[firstPosition(b)], s.order[firstPosition(b) + 1]);
        auto refused = writeSchedule(*hostile, *l->analysis, s);
        QVERIFY(!refused.ok() && oneLine(refused.message()));
        QVERIFY2(refused.message().find("line table") != std::string::npos, refused.message().c_str());
        // A truncated section (sh_size halved): the program runs past it.
        bytes = c->bytes();
        const uint64_t header = [&] {
            uint64_t shoff = 0;
            std::memcpy(&shoff, bytes.data() + 0x28, 8);
            return shoff + uint64_t(sec) * 64;
        }();
        const uint64_t half = c->sections()[sec].size / 2;
        std::memcpy(bytes.data() + header + 0x20, &half, 8);
        hostile = Cubin::parse(bytes);
        QVERIFY(hostile.ok());
        auto cover = lineTableCoverage(*hostile, sec, hostile->kernels().front());
        QVERIFY(!cover.ok() && oneLine(cover.message()));
    }
};

QTEST_MAIN(TestLineTable)
#include "test_line_table.moc"
