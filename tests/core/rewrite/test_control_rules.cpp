// Control-bit edits on every sample kernel: yield flips (legal exactly where the issue gap ignores the
// bit), reuse flags (clearing always legal, setting only where the next instruction reuses the operand),
// LegalityChecker::legalControlEdits against check(), the written bytes of such edits through nvdisasm,
// and the yield rule of the random variant generator.
#include "../sass/test_common.h"
#include "core/analysis/kernel_analysis.h"
#include "core/analysis/yield_evidence.h"
#include "core/cubin/cubin.h"
#include "core/rewrite/control_rules.h"
#include "core/rewrite/cubin_writer.h"
#include "core/rewrite/ffma_interleave.h"
#include "core/rewrite/legality.h"
#include "core/sass/encoding_gate.h"
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

// Where instruction i stands in ptxas' order (the identity schedule): at its own index.
Position inPtxasOrder(InstrId i)
{
    return Position(i.value());
}

IndexRange<InstrId> instructionsOf(const KernelAnalysis& a)
{
    return indexRange<InstrId>(uint32_t(a.listing.instructions.size()));
}

// Edits of ptxas' order.
Edit yieldFlip(const KernelAnalysis& a, InstrId i)
{
    return Edit::control(inPtxasOrder(i), std::nullopt,
                         uint8_t((a.listing.instructions[i.value()].control.yield & 1) ^ 1), std::nullopt);
}

Edit reuseToggle(const KernelAnalysis& a, InstrId i, int slot)
{
    return Edit::control(inPtxasOrder(i), std::nullopt, std::nullopt,
                         uint8_t(a.listing.instructions[i.value()].control.reuse ^ (1u << slot)));
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
    for (Position p : s->positions()) {
        const InstrId i = s->order[p];
        const auto& want = a.listing.instructions[i.value()];
        const auto& have = listing->instructions[p.value()];
        QCOMPARE(have.lo, want.lo);
        QVERIFY2(have.control == s->control[i], want.text().c_str());
        QCOMPARE(have.opcode, want.opcode);
        // nvdisasm prints exactly the reuse flags written, or, under Y0, none of them (the flags kept
        // under Y0 are in the word: have.control says so).
        const auto printed = std::count_if(have.operands.begin(), have.operands.end(),
                                           [](const Operand& op) { return op.reuse; });
        const int written = std::popcount(unsigned(s->control[i].reuse & 7));
        QVERIFY2(printed == written || (printed == 0 && !(s->control[i].yield & 1)), have.text().c_str());
    }
}

// Totals over every sample, asserted at the end (each rule must have met real cases).
struct Tally
{
    int kernels = 0, yieldLegal = 0, yieldWidened = 0, yieldUndecodable = 0, yieldAboveEleven = 0,
        reuseSetLegal = 0, reuseSetRefused = 0, reuseCleared = 0, enumerated = 0, ptxasPairsModelled = 0,
        interleaveEdits = 0, interleaveRefused = 0, reuseSetOnY0 = 0, bothYieldForms = 0, keptUnprinted = 0,
        keptRefusedByRow = 0, interleaveKeptEdits = 0;
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

    // A yield flip alone is legal exactly where the gap ignores the bit (stall 1..11), the instruction is
    // no wall, its class's row in the measured table says the flip is safe (yieldEvidenceFor), and nvdisasm
    // decodes the flipped word to the same instruction; to Y0 with reuse flags, the pairing must be
    // measured on the class too. Every refusal says which rule. The old rule ("ptxas used that bit on the
    // opcode in this kernel") is counted where it would have refused: those are the flips evidence opens.
    void yieldFlips_data() { samples_data(); }
    void yieldFlips()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            const auto& rules = checker.controlRules();
            std::map<std::string, uint8_t> used;
            for (const auto& ins : a.listing.instructions)
                used[ins.baseOpcode] |= uint8_t(1u << (ins.control.yield & 1));
            for (InstrId i : instructionsOf(a)) {
                const auto& ins = a.listing.instructions[i.value()];
                const uint8_t flipped = (ins.control.yield & 1) ^ 1;
                const auto r = checker.check({yieldFlip(a, i)});
                const std::string where = a.listing.kernel + ": " + ins.text() + ": " + r.summary();
                Control c = ins.control;
                c.yield = flipped;
                const auto& ev = yieldEvidenceFor(ins);
                if (ins.control.stall > 11) {
                    QVERIFY2(!r.legal(), where.c_str());
                    QVERIFY2(mentions(r, HazardKind::Structure,
                                      "with stall " + std::to_string(ins.control.stall) +
                                          " > 11 the yield bit changes the issue gap") &&
                                 mentions(r, HazardKind::Structure, "docs/sass-facts.md, control bits"),
                             where.c_str());
                    ++g_tally.yieldAboveEleven;
                } else if (ins.control.stall >= 1 && !a.facts[i.value()].wall && ev.flipSafe &&
                           !(ins.control.stall == 1 && flipped == 1 && !ev.stallOneToY1Safe)) {
                    const auto encoding = rules.encodingRefusal(i, c);
                    const uint8_t mask = uint8_t(ins.control.reuse & 7);
                    if (flipped == 0 && mask != 0 && rules.reuseUnderY0Refusal(i, mask)) {
                        QVERIFY2(!r.legal() && mentions(r, HazardKind::Structure,
                                                        "reuse flags " + reuseMaskName(mask) + " with Y0"),
                                 where.c_str());
                    } else if (encoding) {
                        QVERIFY2(!r.legal() && mentions(r, HazardKind::Structure, "nvdisasm"), where.c_str());
                        QVERIFY2(encoding->find("nvdisasm") != std::string::npos, encoding->c_str());
                        ++g_tally.yieldUndecodable;
                    } else {
                        QVERIFY2(r.legal(), where.c_str());
                        ++g_tally.yieldLegal;
                        if (!((used[ins.baseOpcode] >> flipped) & 1)) ++g_tally.yieldWidened;
                    }
                    if (!r.legal() && flipped == 0 && ins.control.reuse != 0) {
                        // Dropping the flags with the flip is what ptxas itself writes: that decodes.
                        c.reuse = 0;
                        if (!rules.encodingRefusal(i, c)) {
                            const auto dropped = checker.check(
                                {Edit::control(inPtxasOrder(i), std::nullopt, uint8_t(0), uint8_t(0))});
                            QVERIFY2(dropped.legal(), (where + " / " + dropped.summary()).c_str());
                        }
                    }
                } else {
                    QVERIFY2(!r.legal() &&
                                 mentions(r, HazardKind::Structure, "the yield bit cannot change here"),
                             where.c_str());
                    if (!ev.flipSafe && !a.facts[i.value()].wall && ins.control.stall >= 1)
                        QVERIFY2(mentions(r, HazardKind::Structure, "measured"), where.c_str());
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
            for (InstrId i : instructionsOf(a)) {
                const auto& ins = a.listing.instructions[i.value()];
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
                        if ((i + 1).value() < a.cfg.blocks[a.cfg.blockOf[i.value()]].end &&
                            !rules.pairRefusal(i, i + 1, slot))
                            ++g_tally.ptxasPairsModelled;
                        continue;
                    }
                    const auto why = rules.reuseRefusal(identity, i, inPtxasOrder(i), slot);
                    Control c = ins.control;
                    c.reuse = uint8_t(c.reuse | (1u << slot));
                    const auto values = rules.valueRefusals(i, c);
                    QVERIFY2(r.legal() == (!why && values.empty()), where.c_str());
                    if (why)
                        QVERIFY2(mentions(r, HazardKind::Reuse, "operand slot " + std::to_string(slot)),
                                 where.c_str());
                    else if (!values.empty())
                        QVERIFY2(mentions(r, HazardKind::Structure, values.front()), where.c_str());
                    ++g_tally.reuseSetRefused;
                }
                if (ins.control.reuse) {
                    auto all = checker.check(
                        {Edit::control(inPtxasOrder(i), std::nullopt, std::nullopt, uint8_t(0))});
                    QVERIFY2(all.legal(), all.summary().c_str());
                    cleared.control[i].reuse = 0;
                }
            }
            // Setting ptxas' flags back one at a time on the cleared schedule is offered, and only that.
            // Beyond those, only flags on Y0 instructions, where ptxas never sets one (reuse with Y0 is
            // measured on ALU/FMA: yieldEvidenceFor).
            int offered = 0;
            for (const auto& e : checker.legalControlEdits(cleared, ControlSpace::Reuse)) {
                QVERIFY(e.reuse && std::popcount(unsigned(*e.reuse)) == 1);
                const auto& ins = a.listing.instructions[cleared.order[e.at].value()];
                if ((ins.control.reuse & *e.reuse) == *e.reuse) {
                    ++offered;
                    continue;
                }
                const uint8_t mask = uint8_t((ins.control.reuse | *e.reuse) & 7);
                QVERIFY2(!(ins.control.yield & 1) && ((reuseUnderY0EvidenceFor(ins).safeMasks >> mask) & 1),
                         e.describe().c_str());
                ++g_tally.reuseSetOnY0;
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
            std::set<std::tuple<Position, int, int>> offered;
            for (const auto& e : both)
                offered.insert(key(e));
            QCOMPARE(offered.size(), both.size());
            for (InstrId i : instructionsOf(a)) {
                const auto& ins = a.listing.instructions[i.value()];
                std::vector<Edit> candidates{yieldFlip(a, i)};
                // To Y0 with reuse flags, two distinct edits: the flags kept (yieldFlip) and cleared.
                const bool twoWays = (ins.control.yield & 1) && (ins.control.reuse & 7);
                if (twoWays)
                    candidates.push_back(
                        Edit::control(inPtxasOrder(i), std::nullopt, uint8_t(0), uint8_t(0)));
                for (int slot = 0; slot < 4; ++slot)
                    candidates.push_back(reuseToggle(a, i, slot));
                for (const auto& e : candidates) {
                    const auto r = checker.check({e});
                    QVERIFY2(r.legal() == (offered.count(key(e)) > 0),
                             (a.listing.kernel + ": " + e.describe() + ": " + r.summary()).c_str());
                }
                if (twoWays && offered.count(key(candidates[0])) && offered.count(key(candidates[1])))
                    ++g_tally.bothYieldForms;
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
            std::set<Position> reused;
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
                std::map<Position, Edit> at;
                for (const auto& e : edits) {
                    QVERIFY(e.kind == Edit::Kind::Control && e.yield && !e.stall &&
                            (!e.reuse || *e.reuse == 0));
                    QVERIFY(at.emplace(e.at, e).second);
                }
                QVERIFY(checker.check(s).legal());
                for (InstrId i : s.instructions()) {
                    Control c = a.listing.instructions[i.value()].control;
                    const Position p = inPtxasOrder(i);
                    if (auto it = at.find(p); it != at.end()) {
                        c.yield ^= 1;
                        if (it->second.reuse) c.reuse = 0;
                    }
                    QVERIFY(s.order[p] == i && s.control[i] == c);
                }
                if (!checker.legalControlEdits(Schedule::identity(a), ControlSpace::Yield).empty())
                    QVERIFY(!edits.empty());
            }
            // Asked for every offered flip, it applies one on every instruction offered one (they are
            // independent; an instruction with reuse flags is offered two, the flags kept or cleared).
            const auto offered = checker.legalControlEdits(Schedule::identity(a), ControlSpace::Yield);
            std::set<Position> positions;
            for (const auto& e : offered)
                positions.insert(e.at);
            RandomVariantOptions all = opts;
            all.minEdits = all.maxEdits = int(offered.size());
            Schedule everything = Schedule::identity(a);
            std::mt19937_64 any(3);
            QCOMPARE(sassx::randomYieldFlips(checker, any, all, everything).size(), positions.size());
            opts.yieldOnly = false;
            std::mt19937_64 other(7);
            Schedule s = Schedule::identity(a);
            for (const auto& e : randomLegalEdits(checker, other, opts, s))
                QVERIFY(e.kind == Edit::Kind::Move || !e.yield);
        }
    }

    // DeepGEMM's interleave as a named edit, in both forms: every edit it makes flips the yield bit of
    // an FFMA in a run of 8 or more that caches its Rb operand, and clears that flag (Clear) or keeps
    // every flag (Keep); the edits pass the checker together, and written, disassembled and replayed
    // they give exactly those bits.
    void ffmaInterleave_data() { samples_data(); }
    void ffmaInterleave()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            const Schedule identity = Schedule::identity(a);
            for (InterleaveReuse form : {InterleaveReuse::Clear, InterleaveReuse::Keep}) {
                const auto named =
                    ffmaInterleaveEdits(checker, identity, Position(0), Position(UINT32_MAX), form);
                Schedule s = identity;
                for (const auto& e : named.edits) {
                    const InstrId i = s.order[e.at];
                    const auto& ins = a.listing.instructions[i.value()];
                    QCOMPARE(ins.baseOpcode, std::string("FFMA"));
                    QVERIFY(e.yield && *e.yield == ((ins.control.yield & 1) ^ 1));
                    QVERIFY(ins.control.reuse & 2);
                    if (form == InterleaveReuse::Clear)
                        QVERIFY(e.reuse && *e.reuse == (ins.control.reuse & ~2));
                    else
                        QVERIFY(!e.reuse);
                    s.control[i].yield = *e.yield;
                    if (e.reuse) s.control[i].reuse = *e.reuse;
                }
                QVERIFY2(checker.check(s).legal(), checker.check(s).summary().c_str());
                if (named.edits.empty()) continue;
                replay(*l, checker, named.edits);
                if (form == InterleaveReuse::Clear) {
                    g_tally.interleaveEdits += int(named.edits.size());
                    g_tally.interleaveRefused += int(named.refused.size());
                } else {
                    g_tally.interleaveKeptEdits += int(named.edits.size());
                }
            }
        }
    }

    // The encoding gate on words whose reuse marks nvdisasm leaves out under Y0: ptxas' Y1 words with
    // flags, the yield bit cleared and the flags kept. Where nvdisasm decodes the same instruction and
    // only hides the marks (SameReuseUnprinted), the edit is legal exactly where the measured class
    // table has a safe row for that class and mask, and a refusal cites the table; the edit clearing the
    // flags too is judged apart. A word the decoder reads as another instruction stays refused.
    void reuseKeptUnderY0_data() { samples_data(); }
    void reuseKeptUnderY0()
    {
        QFETCH(QString, path);
        auto l = load(path);
        QVERIFY(l);
        for (const auto& ap : l->kernels) {
            const auto& a = *ap;
            LegalityChecker checker(ap);
            const auto& rules = checker.controlRules();
            auto gate = EncodingGate::forListing(a.listing);
            QVERIFY(gate);
            for (InstrId i : instructionsOf(a)) {
                const auto& ins = a.listing.instructions[i.value()];
                const uint8_t mask = uint8_t(ins.control.reuse & 7);
                if (!(ins.control.yield & 1) || !mask || ins.control.stall < 1 || ins.control.stall > 11 ||
                    a.facts[i.value()].wall)
                    continue;
                Control kept = ins.control;
                kept.yield = 0;
                const auto judged = gate->judge(i.value(), kept.encode(ins.hi));
                const auto r = checker.check({yieldFlip(a, i)});
                const std::string where = a.listing.kernel + ": " + ins.text() + ": " + r.summary();
                const auto& row = reuseUnderY0EvidenceFor(ins);
                const bool rowSafe = *row.name && ((row.safeMasks >> mask) & 1);
                if (judged.verdict == DecodeVerdict::Other) {
                    // Refused; by the decoder's words where the class table would allow the mask.
                    QVERIFY2(!r.legal() && (!rowSafe || mentions(r, HazardKind::Structure, "nvdisasm")),
                             where.c_str());
                    continue;
                }
                // The twin with Y1 is ptxas' own word: it prints every flag.
                QCOMPARE(int(gate->judge(i.value(), ins.hi).verdict), int(DecodeVerdict::Same));
                if (judged.verdict == DecodeVerdict::SameReuseUnprinted) {
                    ++g_tally.keptUnprinted;
                    QVERIFY2(judged.why.find("leaves out the marks under Y0") != std::string::npos,
                             judged.why.c_str());
                }
                if (!rowSafe) {
                    ++g_tally.keptRefusedByRow;
                    QVERIFY2(!r.legal() && mentions(r, HazardKind::Structure, "with Y0") &&
                                 mentions(r, HazardKind::Structure, kReuseUnderY0Row.name),
                             where.c_str());
                    continue;
                }
                // Allowed by the row: legal unless another rule of the flip refuses it (its class's
                // yield row, the gap at stall 1), and then not for the reuse flags.
                const auto values = rules.valueRefusals(i, kept);
                QCOMPARE(r.legal(), values.empty());
                if (r.legal()) {
                    const auto note = rules.keptReuseNote(i, kept);
                    QVERIFY(note && note->find(citeEvidence(row.cites, std::string(row.name) + ", mask " +
                                                                           reuseMaskName(mask))) !=
                                        std::string::npos);
                }
            }
        }
    }

    // Every rule above met real cases somewhere in the samples.
    void rulesMetRealCases()
    {
        if (!g_tally.kernels) QSKIP("runs after the sample tests (run the whole test)");
        qInfo("%d legal yield flips ptxas never made on their opcode, %d refused by nvdisasm",
              g_tally.yieldWidened, g_tally.yieldUndecodable);
        qInfo("%d kernels: %d legal yield flips, %d refused above stall 11; reuse: %d flags cleared, %d set "
              "back legally, %d sets refused, %d of ptxas' pairs the set rule models; %d control edits "
              "enumerated",
              g_tally.kernels, g_tally.yieldLegal, g_tally.yieldAboveEleven, g_tally.reuseCleared,
              g_tally.reuseSetLegal, g_tally.reuseSetRefused, g_tally.ptxasPairsModelled, g_tally.enumerated);
        QVERIFY(g_tally.yieldLegal > 0);
        QVERIFY(g_tally.yieldAboveEleven > 0);
        QVERIFY(g_tally.yieldWidened > 0);
        qInfo("ffma-interleave: %d edits, %d refused; %d reuse flags settable on Y0 instructions",
              g_tally.interleaveEdits, g_tally.interleaveRefused, g_tally.reuseSetOnY0);
        QVERIFY(g_tally.interleaveEdits > 0);
        qInfo("yield cleared with reuse kept: %d words whose marks nvdisasm leaves out, %d refused by the "
              "class "
              "table, %d instructions offered both Y0 edits; ffma-interleave-keep-reuse: %d edits",
              g_tally.keptUnprinted, g_tally.keptRefusedByRow, g_tally.bothYieldForms,
              g_tally.interleaveKeptEdits);
        QVERIFY(g_tally.keptUnprinted > 0);
        QVERIFY(g_tally.keptRefusedByRow > 0);
        QVERIFY(g_tally.bothYieldForms > 0);
        QVERIFY(g_tally.reuseCleared > 0);
        QVERIFY(g_tally.reuseSetLegal > 0);
        QVERIFY(g_tally.reuseSetRefused > 0);
        QVERIFY(g_tally.ptxasPairsModelled > 0);
    }
};

QTEST_GUILESS_MAIN(TestControlRules)
#include "test_control_rules.moc"
