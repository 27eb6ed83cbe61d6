// Control-bit edits on every sample kernel: yield flips (legal exactly where the issue gap ignores the
// bit), reuse flags (clearing always legal, setting only where the next instruction reuses the operand),
// LegalityChecker::legalControlEdits against check(), the written bytes of such edits through nvdisasm,
// and the yield rule of the random variant generator.
#include "../sass/test_common.h"
#include "core/analysis/kernel_analysis.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/control_rules.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/legality.h"
#include "core/sass/listing.h"
#include "core/sass/nvdisasm.h"
#include "core/search/random_variants.h"

#include <QFileInfo>
#include <QtTest>

#include <algorithm>
#include <bit>
#include <random>
#include <set>

using namespace sassx;

namespace {

struct Loaded
{
    Cubin cubin;
    std::vector<std::shared_ptr<const KernelAnalysis>> kernels;
};

std::optional<Loaded> load(const QString& path)
{
    auto cubin = Cubin::load(path.toStdString());
    if (!cubin) return std::nullopt;
    auto listings = disassemble(*cubin);
    if (!listings) return std::nullopt;
    Loaded out{std::move(*cubin), {}};
    for (auto& l : *listings)
        out.kernels.push_back(KernelAnalysis::build(std::move(l)));
    return out;
}

bool mentions(const LegalityReport& r, HazardKind kind, const std::string& text)
{
    for (const auto& h : r.hazards)
        if (h.kind == kind && h.message.find(text) != std::string::npos) return true;
    return false;
}

Edit yieldFlip(const KernelAnalysis& a, uint32_t i)
{
    return Edit::control(i, std::nullopt, uint8_t((a.listing.instructions[i].control.yield & 1) ^ 1),
                         std::nullopt);
}

Edit reuseToggle(const KernelAnalysis& a, uint32_t i, int slot)
{
    return Edit::control(i, std::nullopt, std::nullopt,
                         uint8_t(a.listing.instructions[i].control.reuse ^ (1u << slot)));
}

void replay(const Loaded& l, const LegalityChecker& checker, const std::vector<Edit>& edits)
{
    const auto& a = checker.analysis();
    if (edits.empty()) return;
    const auto report = checker.check(edits);
    QVERIFY2(report.legal(), (a.listing.kernel + ": " + report.summary()).c_str());
    auto fix = [&](Schedule& s) { checker.fixReuse(s); };
    auto s = applyEdits(a, edits, fix);
    QVERIFY(s.ok());
    auto bytes = writeSchedule(l.cubin, a, *s);
    QVERIFY2(bytes.ok(), bytes.ok() ? "" : bytes.message().c_str());

    Variant v;
    v.kernel = a.listing.kernel;
    v.edits = edits;
    auto back = Variant::fromJson(nlohmann::json::parse(v.toJson().dump()));
    QVERIFY(back.ok());
    auto s2 = applyEdits(a, back->edits, fix);
    QVERIFY(s2.ok());
    auto bytes2 = writeSchedule(l.cubin, a, *s2);
    QVERIFY(bytes2.ok());
    QVERIFY(*bytes2 == *bytes);

    auto parsed = Cubin::parse(*bytes);
    QVERIFY(parsed.ok());
    auto listing = disassembleKernel(*parsed, a.listing.kernel);
    QVERIFY2(listing.ok(), listing.ok() ? "" : listing.message().c_str());
    QCOMPARE(listing->instructions.size(), a.listing.instructions.size());
    for (uint32_t i = 0; i < a.listing.instructions.size(); ++i) {
        const auto& want = a.listing.instructions[i];
        const auto& have = listing->instructions[i];
        QCOMPARE(have.lo, want.lo);
        QVERIFY2(have.control == s->control[i], want.text().c_str());
        QCOMPARE(have.opcode, want.opcode);
        // nvdisasm prints exactly the reuse flags written.
        const auto printed = std::count_if(have.operands.begin(), have.operands.end(),
                                           [](const Operand& op) { return op.reuse; });
        QVERIFY2(printed == std::popcount(unsigned(s->control[i].reuse & 7)), have.text().c_str());
    }
}

// Totals over every sample, asserted at the end (each rule must have met real cases).
struct Tally
{
    int kernels = 0, yieldLegal = 0, yieldAboveEleven = 0, reuseSetLegal = 0, reuseSetRefused = 0,
        reuseCleared = 0, enumerated = 0, ptxasPairsModelled = 0;
} g_tally;

} // namespace

class TestControlRules : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed: run ./run.sh to install the pinned wheel");
        if (sampleCubins().isEmpty()) QFAIL("no sample cubins were built (nvcc missing?)");
    }

    void samples_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& p : sampleCubins())
            QTest::newRow(qPrintable(QFileInfo(p).fileName())) << p;
    }

    // The checker's gap function agrees with the issue cycles the analysis computed for ptxas' own bits,
    // so a schedule nobody edited keeps every distance the analysis measured.
    void issueGapMatchesAnalysis_data() { samples_data(); }
    void issueGapMatchesAnalysis()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& a : l->kernels)
            for (const auto& ins : a->listing.instructions)
                QCOMPARE(issueGap(ins.control), issueCycles(ins));
    }

    // A yield flip alone is legal exactly where the gap ignores the bit (stall 1..11), ptxas used the new
    // bit on the opcode, the instruction is a fixed-latency one and no wall, and (to Y0) it carries no
    // reuse flags; above stall 11 the refusal says why.
    void yieldFlips_data() { samples_data(); }
    void yieldFlips()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            std::map<std::string, uint8_t> used;
            for (const auto& ins : a.listing.instructions)
                used[ins.baseOpcode] |= uint8_t(1u << (ins.control.yield & 1));
            for (uint32_t i = 0; i < a.listing.instructions.size(); ++i) {
                const auto& ins = a.listing.instructions[i];
                const uint8_t flipped = (ins.control.yield & 1) ^ 1;
                const auto r = checker.check({yieldFlip(a, i)});
                const std::string where = a.listing.kernel + ": " + ins.text() + ": " + r.summary();
                if (ins.control.stall > 11) {
                    QVERIFY2(!r.legal(), where.c_str());
                    QVERIFY2(mentions(r, HazardKind::Structure,
                                      "with stall " + std::to_string(ins.control.stall) +
                                          " > 11 the yield bit changes the issue gap") &&
                                 mentions(r, HazardKind::Structure, "docs/sass-facts.md, control bits"),
                             where.c_str());
                    ++g_tally.yieldAboveEleven;
                } else if (ins.control.stall >= 1 && !a.facts[i].wall && !ins.variableLatency &&
                           ((used[ins.baseOpcode] >> flipped) & 1)) {
                    if (flipped == 0 && ins.control.reuse != 0) {
                        // ptxas never pairs reuse flags with Y0: the flip must drop them.
                        QVERIFY2(!r.legal() && mentions(r, HazardKind::Structure, "reuse flags with Y0"),
                                 where.c_str());
                        const auto dropped =
                            checker.check({Edit::control(i, std::nullopt, uint8_t(0), uint8_t(0))});
                        QVERIFY2(dropped.legal(), (where + " / " + dropped.summary()).c_str());
                    } else {
                        QVERIFY2(r.legal(), where.c_str());
                    }
                    ++g_tally.yieldLegal;
                } else {
                    QVERIFY2(!r.legal() &&
                                 mentions(r, HazardKind::Structure, "the yield bit cannot change here"),
                             where.c_str());
                }
            }
        }
    }

    // Reuse flags: clearing any of ptxas' flags is legal; setting one is legal exactly when the rule says
    // so and the instruction keeps Y1, and a refusal names the slot. The rule agrees with ptxas: flags
    // ptxas set on pairs the rule models are ones it would set, and on a schedule with ptxas' flags
    // cleared, setting each back is offered (and nothing else).
    void reuseFlags_data() { samples_data(); }
    void reuseFlags()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            const auto& rules = checker.controlRules();
            const Schedule identity = Schedule::identity(a);
            Schedule cleared = identity;
            int flags = 0;
            for (uint32_t i = 0; i < a.listing.instructions.size(); ++i) {
                const auto& ins = a.listing.instructions[i];
                for (int slot = 0; slot < 4; ++slot) {
                    const bool had = (ins.control.reuse >> slot) & 1;
                    const auto r = checker.check({reuseToggle(a, i, slot)});
                    const std::string where = a.listing.kernel + ": " + ins.text() + " slot " +
                                              std::to_string(slot) + ": " + r.summary();
                    if (had) {
                        QVERIFY2(r.legal(), where.c_str());
                        ++g_tally.reuseCleared;
                        ++flags;
                        // ptxas' own pair, judged as if someone else had set the flag.
                        if (i + 1 < a.cfg.blocks[a.cfg.blockOf[i]].end && !rules.pairRefusal(i, i + 1, slot))
                            ++g_tally.ptxasPairsModelled;
                        continue;
                    }
                    const auto why = rules.reuseRefusal(identity, i, i, slot);
                    QVERIFY2(r.legal() == (!why && (ins.control.yield & 1)), where.c_str());
                    if (why)
                        QVERIFY2(mentions(r, HazardKind::Reuse, "operand slot " + std::to_string(slot)),
                                 where.c_str());
                    else if (!(ins.control.yield & 1))
                        QVERIFY2(mentions(r, HazardKind::Structure, "reuse flags with Y0"), where.c_str());
                    ++g_tally.reuseSetRefused;
                }
                if (ins.control.reuse) {
                    auto all = checker.check({Edit::control(i, std::nullopt, std::nullopt, uint8_t(0))});
                    QVERIFY2(all.legal(), all.summary().c_str());
                    cleared.control[i].reuse = 0;
                }
            }
            // Setting ptxas' flags back one at a time on the cleared schedule is offered, and only that.
            int offered = 0;
            for (const auto& e : checker.legalControlEdits(cleared, ControlSpace::Reuse)) {
                QVERIFY(e.reuse && std::popcount(unsigned(*e.reuse)) == 1);
                QVERIFY2((a.listing.instructions[e.at].control.reuse & *e.reuse) == *e.reuse,
                         e.describe().c_str());
                ++offered;
            }
            QCOMPARE(offered, flags);
            g_tally.reuseSetLegal += offered;
        }
    }

    // legalControlEdits offers exactly the single control edits check() accepts: every yield flip and every
    // reuse toggle of ptxas' order is tried both ways.
    void enumerationMatchesCheck_data() { samples_data(); }
    void enumerationMatchesCheck()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            const Schedule identity = Schedule::identity(a);
            const auto both = checker.legalControlEdits(identity, ControlSpace::YieldAndReuse);
            const auto yields = checker.legalControlEdits(identity, ControlSpace::Yield);
            const auto reuses = checker.legalControlEdits(identity, ControlSpace::Reuse);
            QCOMPARE(both.size(), yields.size() + reuses.size());
            for (const auto& e : yields)
                QVERIFY(e.kind == Edit::Kind::Control && e.yield && !e.stall && (!e.reuse || *e.reuse == 0));
            for (const auto& e : reuses)
                QVERIFY(e.kind == Edit::Kind::Control && e.reuse && !e.stall && !e.yield);
            auto key = [](const Edit& e) {
                return std::tuple(e.at, e.yield.value_or(9), e.reuse.value_or(99));
            };
            std::set<std::tuple<uint32_t, int, int>> offered;
            for (const auto& e : both)
                offered.insert(key(e));
            QCOMPARE(offered.size(), both.size());
            for (uint32_t i = 0; i < a.listing.instructions.size(); ++i) {
                std::vector<Edit> candidates{yieldFlip(a, i)};
                if (a.listing.instructions[i].control.reuse)
                    candidates.push_back(Edit::control(i, std::nullopt, uint8_t(0), uint8_t(0)));
                for (int slot = 0; slot < 4; ++slot)
                    candidates.push_back(reuseToggle(a, i, slot));
                for (const auto& e : candidates) {
                    const auto r = checker.check({e});
                    QVERIFY2(r.legal() == (offered.count(key(e)) > 0),
                             (a.listing.kernel + ": " + e.describe() + ": " + r.summary()).c_str());
                }
            }
            g_tally.enumerated += int(both.size());
            ++g_tally.kernels;
        }
    }

    // All offered yield flips together, and separately one offered reuse edit per instruction together:
    // still legal (edits of different instructions are independent), and written, disassembled and
    // replayed from JSON they give the bits asked for and the same bytes every time.
    void replayWrites_data() { samples_data(); }
    void replayWrites()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            const Schedule identity = Schedule::identity(a);
            std::vector<Edit> reuseEdits;
            std::set<uint32_t> reused;
            for (const auto& e : checker.legalControlEdits(identity, ControlSpace::Reuse))
                if (reused.insert(e.at).second) reuseEdits.push_back(e);
            for (const auto& edits : {checker.legalControlEdits(identity, ControlSpace::Yield), reuseEdits}) {
                replay(*l, checker, edits);
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    // variants --rule yield: only yield flips, each on its own instruction, legal together, and the same
    // seed gives the same flips; the other modes never draw yield edits.
    void randomYieldFlips_data() { samples_data(); }
    void randomYieldFlips()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            RandomVariantOptions opts;
            opts.yieldOnly = true;
            opts.minEdits = 1;
            opts.maxEdits = 8;
            std::mt19937_64 rng(7), again(7);
            for (int v = 0; v < 3; ++v) {
                Schedule s = Schedule::identity(a), s2 = Schedule::identity(a);
                auto edits = randomLegalEdits(checker, rng, opts, s);
                auto edits2 = sassx::randomYieldFlips(checker, again, opts, s2);
                QVERIFY(edits == edits2);
                QVERIFY(int(edits.size()) <= opts.maxEdits);
                std::map<uint32_t, Edit> at;
                for (const auto& e : edits) {
                    QVERIFY(e.kind == Edit::Kind::Control && e.yield && !e.stall &&
                            (!e.reuse || *e.reuse == 0));
                    QVERIFY(at.emplace(e.at, e).second);
                }
                QVERIFY(checker.check(s).legal());
                for (uint32_t i = 0; i < a.listing.instructions.size(); ++i) {
                    Control c = a.listing.instructions[i].control;
                    if (auto it = at.find(i); it != at.end()) {
                        c.yield ^= 1;
                        if (it->second.reuse) c.reuse = 0;
                    }
                    QVERIFY(s.order[i] == i && s.control[i] == c);
                }
                if (!checker.legalControlEdits(Schedule::identity(a), ControlSpace::Yield).empty())
                    QVERIFY(!edits.empty());
            }
            // Asked for every offered flip, it applies every one (they are independent).
            const auto offered = checker.legalControlEdits(Schedule::identity(a), ControlSpace::Yield);
            RandomVariantOptions all = opts;
            all.minEdits = all.maxEdits = int(offered.size());
            Schedule everything = Schedule::identity(a);
            std::mt19937_64 any(3);
            QCOMPARE(sassx::randomYieldFlips(checker, any, all, everything).size(), offered.size());
            opts.yieldOnly = false;
            std::mt19937_64 other(7);
            Schedule s = Schedule::identity(a);
            for (const auto& e : randomLegalEdits(checker, other, opts, s))
                QVERIFY(e.kind == Edit::Kind::Move || !e.yield);
        }
    }

    // Every rule above met real cases somewhere in the samples.
    void rulesMetRealCases()
    {
        if (!g_tally.kernels) QSKIP("runs after the sample tests (run the whole test)");
        qInfo("%d kernels: %d legal yield flips, %d refused above stall 11; reuse: %d flags cleared, %d set "
              "back legally, %d sets refused, %d of ptxas' pairs the set rule models; %d control edits "
              "enumerated",
              g_tally.kernels, g_tally.yieldLegal, g_tally.yieldAboveEleven, g_tally.reuseCleared,
              g_tally.reuseSetLegal, g_tally.reuseSetRefused, g_tally.ptxasPairsModelled, g_tally.enumerated);
        QVERIFY(g_tally.yieldLegal > 0);
        QVERIFY(g_tally.yieldAboveEleven > 0);
        QVERIFY(g_tally.reuseCleared > 0);
        QVERIFY(g_tally.reuseSetLegal > 0);
        QVERIFY(g_tally.reuseSetRefused > 0);
        QVERIFY(g_tally.ptxasPairsModelled > 0);
    }
};

QTEST_GUILESS_MAIN(TestControlRules)
#include "test_control_rules.moc"
