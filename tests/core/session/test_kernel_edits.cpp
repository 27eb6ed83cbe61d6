// The edits the workspace offers a front end besides single moves (core/session/kernel_edits.h,
// variant_draws.h), on real sample kernels: the legal control edits with their evidence notes, DeepGEMM's
// FFMA interleave, and the variants command's rules, each judged by the kernel's own checker.
#include "core/session/kernel_edits.h"
#include "core/session/variant_draws.h"

#include <QtTest>

#include <random>

using namespace sassx;

namespace {

QString sample(const QString& name)
{
    return QStringLiteral(SASSX_SAMPLES_DIR "/%1").arg(name);
}

std::shared_ptr<const KernelWorkspace> openSample(const QString& name)
{
    auto ws = Workspace::open(sample(name).toStdString());
    if (!ws) return nullptr;
    auto k = (*ws)->kernel();
    return k ? *k : nullptr;
}

const QStringList kSamples = {
    QStringLiteral("sgemm_leakyrelu.sm_90.cubin"), QStringLiteral("rmsnorm.sm_90.cubin"),
    QStringLiteral("hgemm_leakyrelu.sm_90.cubin"), QStringLiteral("flash_attn_fwd.sm_90.cubin")};

// `edits` applied one after another to `s`, as the CLI and the listing apply a pattern's edits.
Schedule applied(Schedule s, const std::vector<Edit>& edits)
{
    for (const Edit& e : edits) {
        Control& c = s.control[s.order[e.at]];
        if (e.yield) c.yield = *e.yield;
        if (e.reuse) c.reuse = *e.reuse;
        if (e.stall) c.stall = *e.stall;
    }
    return s;
}

} // namespace

class TestKernelEdits : public QObject
{
    Q_OBJECT
private:
    std::shared_ptr<const KernelWorkspace> m_sgemm;

private Q_SLOTS:
    void initTestCase()
    {
        for (const QString& name : kSamples)
            if (!QFileInfo::exists(sample(name))) QSKIP(qPrintable("sample missing (no nvcc?): " + name));
        m_sgemm = openSample(kSamples.front());
        QVERIFY(m_sgemm);
    }

    // Every control edit offered is legal on its own; a note goes only with an edit that keeps reuse
    // flags under a cleared yield bit (where nvdisasm prints no marks), and the samples have such edits.
    void controlEditsAreLegalAndNotedWhereFlagsAreKept()
    {
        int notes = 0, offered = 0;
        for (const QString& name : kSamples) {
            auto k = openSample(name);
            QVERIFY2(k, qPrintable(name));
            const Schedule identity = Schedule::identity(k->analysis());
            const auto options = legalControlEdits(*k, identity, ControlSpace::All);
            QCOMPARE(options.size(), k->checker().legalControlEdits(identity, ControlSpace::All).size());
            for (const ControlEditOption& o : options) {
                ++offered;
                const LegalityReport r = k->check({o.edit});
                QVERIFY2(r.legal(), qPrintable(name + ": " + QString::fromStdString(r.summary())));
                if (!o.note) continue;
                ++notes;
                const Control c = applied(identity, {o.edit}).control[identity.order[o.edit.at]];
                QVERIFY2(c.yield == 0 && c.reuse != 0,
                         qPrintable(name + ": " + QString::fromStdString(*o.note)));
            }
        }
        QVERIFY(offered > 0);
        QVERIFY2(notes > 0, "no sample kernel offered a reuse flag kept under Y0");
    }

    // The interleave through the workspace: FFMA runs found in the SGEMM, every edit on an FFMA, the
    // edits legal together, Clear clearing the Rb flag and Keep keeping every flag.
    void interleaveOnSgemm()
    {
        const Schedule identity = Schedule::identity(m_sgemm->analysis());
        for (InterleaveReuse form : {InterleaveReuse::Clear, InterleaveReuse::Keep}) {
            const PatternEdits named = interleaveEdits(*m_sgemm, identity, form);
            QVERIFY(named.runs > 0);
            QVERIFY(!named.edits.empty());
            for (const Edit& e : named.edits) {
                const auto& ins = m_sgemm->analysis().listing.instructions[identity.order[e.at].value()];
                QCOMPARE(ins.baseOpcode, std::string("FFMA"));
                QCOMPARE(bool(e.reuse), form == InterleaveReuse::Clear);
            }
            const Schedule s = applied(identity, named.edits);
            QVERIFY2(m_sgemm->checker().check(s).legal(), m_sgemm->checker().check(s).summary().c_str());
            // A range without FFMAs finds no run.
            QCOMPARE(interleaveEdits(*m_sgemm, identity, form, Position(0), Position(1)).runs, 0);
        }
    }

    void ruleNamesRoundTrip()
    {
        QCOMPARE(int(variantRuleNames().size()), int(VariantRule::Derived) + 1);
        for (const std::string& name : variantRuleNames()) {
            const auto rule = parseVariantRule(name);
            QVERIFY(rule);
            QCOMPARE(std::string(variantRuleName(*rule)), name);
        }
        QVERIFY(!parseVariantRule("SIP"));
        QVERIFY(!parseVariantRule(""));
    }

    // Every rule but SIP's draws schedules the checker accepts; the same seed draws the same edits; the
    // derived rule is deterministic and changes only control codes.
    void drawsOfEveryRule()
    {
        for (const std::string& name : variantRuleNames()) {
            const VariantRule rule = *parseVariantRule(name);
            VariantDrawer drawer(m_sgemm, {rule, 6, false});
            VariantDrawer again(m_sgemm, {rule, 6, false});
            QCOMPARE(drawer.checked(), rule != VariantRule::Sip);
            std::mt19937_64 rng(7), rng2(7);
            int nonEmpty = 0;
            for (int d = 0; d < 8; ++d) {
                Schedule s = Schedule::identity(m_sgemm->analysis());
                Schedule s2 = s;
                auto edits = drawer.draw(rng, s);
                auto edits2 = again.draw(rng2, s2);
                QVERIFY2(edits && edits2, edits ? "" : edits.message().c_str());
                QVERIFY(*edits == *edits2);
                QVERIFY(s.order == s2.order);
                if (edits->empty()) continue;
                ++nonEmpty;
                if (drawer.checked())
                    QVERIFY2(m_sgemm->checker().check(s).legal(),
                             qPrintable(QString::fromStdString(name + ": " +
                                                               m_sgemm->checker().check(s).summary())));
                if (rule == VariantRule::Derived) {
                    QVERIFY(s.order == Schedule::identity(m_sgemm->analysis()).order);
                    for (const Edit& e : *edits)
                        QVERIFY(e.kind == Edit::Kind::Control);
                }
            }
            QVERIFY2(nonEmpty > 0, name.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestKernelEdits)
#include "test_kernel_edits.moc"
