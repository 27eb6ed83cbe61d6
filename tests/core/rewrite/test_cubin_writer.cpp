// The cubin writer against nvdisasm: for every sample kernel and random variants, the written cubin
// disassembles to exactly the expected permutation with the expected control bits, offsets and
// relocations follow their instructions, and no byte outside the patched ranges changes. Legal
// variants (LegalityChecker) re-parse with the same dependency facts up to the permutation.
#include "../sass/test_common.h"
#include "core/rewrite/block_positions.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/legality.h"
#include "core/sass/nvdisasm.h"
#include "rewrite_test_util.h"

#include <QtTest>

#include <map>
#include <tuple>

using namespace sassx;

namespace {

struct Loaded
{
    Cubin cubin;
    std::shared_ptr<const KernelAnalysis> analysis;
};

std::optional<Loaded> load(const QString& path, const QString& kernel, QString* why)
{
    auto cubin = Cubin::load(path.toStdString());
    if (!cubin) return *why = QString::fromStdString(cubin.message()), std::nullopt;
    auto listing = disassembleKernel(*cubin, kernel.toStdString());
    if (!listing) return *why = QString::fromStdString(listing.message()), std::nullopt;
    return Loaded{std::move(*cubin), KernelAnalysis::build(std::move(*listing))};
}

QString describe(const Control& c)
{
    return QString("S%1 Y%2 W%3 R%4 wait%5 reuse%6")
        .arg(c.stall)
        .arg(c.yield)
        .arg(c.wbar)
        .arg(c.rbar)
        .arg(c.wait)
        .arg(c.reuse);
}

// nvdisasm prints reuse flags into the operands; they are compared through the control bits.
std::string stripReuse(std::string s)
{
    for (size_t at; (at = s.find(".reuse")) != std::string::npos;)
        s.erase(at, 6);
    return s;
}

// Everything the written cubin must show, compared position by position. Returns "" when it matches.
QString verifyWritten(const Cubin& orig, const KernelAnalysis& a, const Schedule& s,
                      const std::vector<uint8_t>& out)
{
    auto parsed = Cubin::parse(out);
    if (!parsed) return "written cubin does not parse: " + QString::fromStdString(parsed.message());
    const Kernel* k0 = orig.findKernel(a.listing.kernel);
    const Kernel* k1 = parsed->findKernel(a.listing.kernel);
    if (!k1 || k1->codeSize != k0->codeSize) return "kernel missing or resized";

    // Bytes outside the patched ranges are identical.
    std::vector<char> patched(out.size(), 0);
    for (const auto& r : patchedRanges(orig, *k0))
        std::fill(patched.begin() + r.fileOffset, patched.begin() + r.fileOffset + r.size, 1);
    if (out.size() != orig.bytes().size()) return "file size changed";
    for (size_t i = 0; i < out.size(); ++i)
        if (!patched[i] && out[i] != orig.bytes()[i])
            return QString("byte 0x%1 outside the patched ranges changed").arg(i, 0, 16);

    const auto pos = s.positionOf();
    // Offset attributes and relocations name the moved instruction.
    if (k1->instrOffsets.size() != k0->instrOffsets.size()) return "offset attribute count changed";
    for (size_t l = 0; l < k0->instrOffsets.size(); ++l)
        for (size_t e = 0; e < k0->instrOffsets[l].offsets.size(); ++e) {
            uint32_t o = k0->instrOffsets[l].offsets[e], want = pos[InstrId(o / 16)].value() * 16 + o % 16;
            if (k1->instrOffsets[l].offsets[e] != want)
                return QString("%1 entry %2: 0x%3, expected 0x%4")
                    .arg(QString::fromStdString(nvinfo::attributeName(k0->instrOffsets[l].attribute)))
                    .arg(e)
                    .arg(k1->instrOffsets[l].offsets[e], 0, 16)
                    .arg(want, 0, 16);
        }
    for (size_t r = 0; r < k0->relocations.size(); ++r) {
        uint64_t o = orig.relocations()[k0->relocations[r]].offset;
        uint64_t got = parsed->relocations()[k1->relocations[r]].offset;
        if (got != uint64_t(pos[InstrId(uint32_t(o / 16))].value()) * 16 + o % 16)
            return QString("relocation %1 not moved").arg(r);
    }

    // nvdisasm of the output: the expected permutation with the expected control bits.
    auto listing = disassembleKernel(*parsed, a.listing.kernel);
    if (!listing) return "nvdisasm of the written cubin: " + QString::fromStdString(listing.message());
    const auto& got = listing->instructions;
    if (got.size() != s.order.size()) return "instruction count changed";
    for (Position p : s.positions()) {
        const InstrId i = s.order[p];
        const Instruction& want = a.listing.instructions[i.value()];
        const Instruction& have = got[p.value()];
        const Control c = s.control[i];
        auto where = QString("position %1 (original %2, %3): ")
                         .arg(p.value())
                         .arg(i.value())
                         .arg(QString::fromStdString(want.text()));
        if (have.lo != want.lo || have.hi != withControl(want.hi, c)) return where + "raw words differ";
        if (!(have.control == c))
            return where +
                   QString("control bits differ: have %1 want %2").arg(describe(have.control), describe(c));
        if (have.opcode != want.opcode || have.predicateText != want.predicateText)
            return where + "opcode differs: " + QString::fromStdString(have.text());
        if (want.branchTarget && stripReuse(have.operandText) != stripReuse(want.operandText)) {
            // PC-relative: a moved branch points the same distance away from its new position.
            int64_t expect = int64_t(*want.branchTarget) + (int64_t(p.value()) - int64_t(i.value())) * 16;
            if (!have.branchTarget || int64_t(*have.branchTarget) != expect)
                return where + "branch target " + QString::fromStdString(have.text());
        } else if (want.controlFlow && p.value() != i.value()) {
            // Other PC-relative operands (RET.REL, CALL.REL) print relative to the new position; the
            // raw words above are what the writer owes.
        } else if (stripReuse(have.operandText) != stripReuse(want.operandText)) {
            return where + "operands differ: " + QString::fromStdString(have.text());
        }
    }
    return {};
}

using EdgeKey = std::tuple<InstrId, InstrId, int, std::string, int, bool>;
// The dependency edges of the analysis of a kernel written in `order`, named by original instruction:
// the written listing holds the instruction at position p as its p-th instruction.
std::multiset<EdgeKey> edgeSet(const KernelAnalysis& written, const IndexVector<Position, InstrId>& order)
{
    std::multiset<EdgeKey> out;
    for (const auto& e : written.deps.edges())
        out.insert({order[Position(e.from)], order[Position(e.to)], int(e.kind),
                    e.hasReg ? e.reg.name() : std::string(), e.scoreboard, e.readScoreboard});
    return out;
}

QString describeEdge(const char* what, const EdgeKey& e)
{
    return QString("%1 %2->%3 %4 %5 SB%6")
        .arg(what)
        .arg(std::get<0>(e).value())
        .arg(std::get<1>(e).value())
        .arg(depKindName(DepKind(std::get<2>(e))))
        .arg(QString::fromStdString(std::get<3>(e)))
        .arg(std::get<4>(e));
}

QString describeEdits(const std::vector<Edit>& edits)
{
    QStringList out;
    for (const auto& e : edits)
        out << QString::fromStdString(e.describe());
    return out.join(", ");
}

} // namespace

class TestCubinWriter : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed: run ./run.sh to install the pinned wheel");
        if (sampleCubins().isEmpty()) QFAIL("no sample cubins were built (nvcc missing?)");
    }

    void randomVariants_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("kernel");
        for (const auto& p : sampleCubins()) {
            auto c = Cubin::load(p.toStdString());
            QVERIFY(c.ok());
            for (const auto& k : c->kernels())
                QTest::newRow(qPrintable(QFileInfo(p).fileName() + ":" + QString::fromStdString(k.name)))
                    << p << QString::fromStdString(k.name);
        }
    }

    void randomVariants()
    {
        QFETCH(QString, path);
        QFETCH(QString, kernel);
        QString why;
        auto l = load(path, kernel, &why);
        QVERIFY2(l, qPrintable(why));
        const auto& a = *l->analysis;
        // The identity schedule reproduces the file byte for byte.
        auto same = writeSchedule(l->cubin, a, Schedule::identity(a));
        QVERIFY2(same.ok(), same.ok() ? "" : same.message().c_str());
        QVERIFY(*same == l->cubin.bytes());

        const Kernel& k = *l->cubin.findKernel(kernel.toStdString());
        // Triton cubins always carry line tables; the writer test accepts stale ones (see PatchOptions).
        const PatchOptions opts{.keepStaleLineInfo = true};
        const auto walls = unpatchableInstructions(l->cubin, k, opts);
        std::mt19937 rng(qHash(QFileInfo(path).fileName() + kernel)); // same choices on every machine
        for (int v = 0; v < 6; ++v) {
            auto edits = rewrite_test::randomMoves(a, walls, rng, 1 + int(rng() % 30));
            auto s = applyEdits(a, edits);
            QVERIFY2(s.ok(), s.ok() ? "" : s.message().c_str());
            rewrite_test::randomControl(a, *s, rng, 1 + int(rng() % 20));
            auto out = writeSchedule(l->cubin, a, *s, opts);
            QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
            QString problem = verifyWritten(l->cubin, a, *s, *out);
            QVERIFY2(problem.isEmpty(), qPrintable(QString("variant %1: %2").arg(v).arg(problem)));
            // Without the option the line tables are rewritten too (test_line_table checks their rows):
            // the same code as with stale line info.
            if (l->cubin.findSection(".nv_debug_line_sass") >= 0) {
                auto fresh = writeSchedule(l->cubin, a, *s);
                QVERIFY2(fresh.ok(), fresh.ok() ? "" : fresh.message().c_str());
                const auto text = int64_t(l->cubin.sections()[k.textSection].offset);
                QVERIFY(std::equal(out->begin() + text, out->begin() + text + int64_t(k.codeSize),
                                   fresh->begin() + text));
            }
        }
    }

    void legalVariantsKeepDependencies_data() { randomVariants_data(); }

    void legalVariantsKeepDependencies()
    {
        QFETCH(QString, path);
        QFETCH(QString, kernel);
        QString why;
        auto l = load(path, kernel, &why);
        QVERIFY2(l, qPrintable(why));
        const auto& a = *l->analysis;
        LegalityChecker checker(l->analysis);
        // Until the checker takes the writer's walls itself, legal moves crossing them are dropped here.
        const PatchOptions opts{.keepStaleLineInfo = true};
        const auto wallList =
            unpatchableInstructions(l->cubin, *l->cubin.findKernel(kernel.toStdString()), opts);
        // Walls stay in place while nothing crosses them: a wall's original index is its position.
        std::set<Position> walls;
        for (uint32_t w : wallList)
            walls.insert(Position(w));
        auto crossesWall = [&](Position from, Position to) {
            auto it = walls.lower_bound(std::min(from, to));
            return it != walls.end() && *it <= std::max(from, to);
        };
        std::mt19937 rng(qHash(kernel + path));
        const uint32_t n = uint32_t(a.listing.instructions.size());
        int written = 0;
        for (int v = 0; v < 3; ++v) {
            std::vector<Edit> edits;
            Schedule cur = Schedule::identity(a);
            for (int m = 0, want = 1 + int(rng() % 30), tries = 0; m < want && tries < 200; ++tries) {
                const Position p(std::uniform_int_distribution<uint32_t>(0, n - 1)(rng));
                auto targets = checker.legalTargets(cur, p);
                std::erase_if(targets, [&](Position t) { return crossesWall(p, t); });
                if (targets.empty()) continue;
                edits.push_back(Edit::move(p, targets[rng() % targets.size()]));
                auto next = applyEdits(a, edits);
                QVERIFY(next.ok());
                cur = *next;
                ++m;
            }
            if (edits.empty()) continue;
            auto report = checker.check(edits);
            QVERIFY2(report.legal(), report.summary().c_str());
            checker.fixReuse(cur);
            auto out = writeSchedule(l->cubin, a, cur, opts);
            QVERIFY2(out.ok(), out.ok() ? "" : out.message().c_str());
            QString problem = verifyWritten(l->cubin, a, cur, *out);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            // Re-parse and re-analyse: the same dependency facts, named by original index.
            auto parsed = Cubin::parse(*out);
            QVERIFY(parsed.ok());
            auto listing = disassembleKernel(*parsed, a.listing.kernel);
            QVERIFY(listing.ok());
            auto b = KernelAnalysis::build(std::move(*listing));
            const auto identity = Schedule::identity(a).order;
            // Register and memory facts must be identical; scoreboard facts (which wait a consumer
            // relies on, implicit coverage) may legitimately shift when the checker lets a waiting
            // instruction pass a producer: reported as expected failures for the checker's author.
            for (bool scoreboardKinds : {false, true}) {
                auto keep = [&](std::multiset<EdgeKey> s) {
                    std::erase_if(s, [&](const EdgeKey& e) {
                        const auto k = DepKind(std::get<2>(e));
                        const bool sb = k == DepKind::SbProducer || k == DepKind::SbConsumer ||
                                        k == DepKind::ImplicitCover;
                        return sb != scoreboardKinds;
                    });
                    return s;
                };
                auto before = keep(edgeSet(a, identity)), after = keep(edgeSet(*b, cur.order));
                QStringList diff;
                for (const auto& e : before)
                    if (!after.count(e)) diff << describeEdge("lost", e);
                for (const auto& e : after)
                    if (!before.count(e)) diff << describeEdge("new", e);
                if (scoreboardKinds && !diff.isEmpty())
                    QEXPECT_FAIL("", "scoreboard facts shift under some moves the checker allows", Continue);
                QVERIFY2(diff.isEmpty(),
                         qPrintable(QString("%1 dependency facts changed after %2:\n")
                                        .arg(scoreboardKinds ? "scoreboard" : "register/memory")
                                        .arg(describeEdits(edits)) +
                                    diff.mid(0, 12).join('\n')));
            }
            for (Position p : cur.positions())
                QVERIFY(b->listing.instructions[p.value()].defs ==
                            a.listing.instructions[cur.order[p].value()].defs &&
                        b->listing.instructions[p.value()].uses ==
                            a.listing.instructions[cur.order[p].value()].uses);
            ++written;
        }
        if (!written) QSKIP("no legal move found in this kernel");
    }

    // What the writer refuses, with a sentence.
    void refusesMovesOutOfBlocks()
    {
        const auto paths = sampleCubins();
        QString why;
        auto c = Cubin::load(paths.front().toStdString());
        QVERIFY(c.ok());
        auto l = load(paths.front(), QString::fromStdString(c->kernels().front().name), &why);
        QVERIFY2(l, qPrintable(why));
        const auto& a = *l->analysis;
        QVERIFY(a.cfg.blocks.size() > 1);
        Schedule s = Schedule::identity(a);
        const Position second = firstPosition(a.cfg.blocks[1]);
        std::swap(s.order[second - 1], s.order[second]);
        auto out = writeSchedule(l->cubin, a, s);
        QVERIFY(!out.ok());
        QVERIFY2(out.message().find("basic block") != std::string::npos, out.message().c_str());
        s = Schedule::identity(a);
        s.order.raw().pop_back();
        QVERIFY(!writeSchedule(l->cubin, a, s).ok());
    }
};

QTEST_MAIN(TestCubinWriter)
#include "test_cubin_writer.moc"
