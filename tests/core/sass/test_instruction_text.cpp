// The one notation for reuse flags: with a set yield bit an operand whose flag is set prints `.reuse`, as
// nvdisasm does; under a cleared yield bit (where nvdisasm prints no mark although the flag stays in the
// word) it prints `.reuse*`, and the Reuse field ends with the same '*'. Every FFMA of the SGEMM sample that
// caches an operand, written with its own flags under Y1 and Y0, and with its flags cleared.
#include "core/cubin/cubin.h"
#include "core/sass/control_text.h"
#include "core/sass/instruction_text.h"
#include "core/sass/listing.h"
#include "core/sass/nvdisasm.h"

#include <QtTest>

#include <bit>

using namespace sassx;

namespace {

int count(const std::string& text, const std::string& what)
{
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

} // namespace

class TestInstructionText : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!findNvdisasm()) QSKIP("nvdisasm not installed: run ./run.sh to install the pinned wheel");
    }

    void reuseUnderClearedYield()
    {
        const QString path = QStringLiteral(SASSX_SAMPLES_DIR "/sgemm_leakyrelu.sm_90.cubin");
        if (!QFileInfo::exists(path)) QSKIP("sample sgemm_leakyrelu not built (build target sassx_samples)");
        auto cubin = Cubin::load(path.toStdString());
        QVERIFY2(cubin.ok(), cubin.ok() ? "" : cubin.message().c_str());
        auto listings = disassemble(*cubin);
        QVERIFY2(listings.ok(), listings.ok() ? "" : listings.message().c_str());
        int checked = 0;
        for (const auto& listing : *listings)
            for (const Instruction& ins : listing.instructions) {
                if (ins.opcode != "FFMA" || !(ins.control.yield & 1) || !(ins.control.reuse & 7)) continue;
                const int flags = std::popcount(unsigned(ins.control.reuse & 7));
                // ptxas' own word: nvdisasm's text, `.reuse` only, no star anywhere.
                const std::string own = operandText(ins, ins.control);
                QCOMPARE(own, ins.operandText);
                QCOMPARE(count(own, ".reuse*"), 0);
                QVERIFY(controlFieldTexts(ins.control).reuse.find('*') == std::string::npos);
                // The same flags under Y0: each mark starred, and the field too.
                Control y0 = ins.control;
                y0.yield = 0;
                const std::string kept = operandText(ins, y0);
                QVERIFY2(count(kept, ".reuse*") == count(own, ".reuse") &&
                             count(kept, ".reuse") == count(kept, ".reuse*"),
                         qPrintable(QString::fromStdString(own + " -> " + kept)));
                QVERIFY2(count(kept, ".reuse*") <= flags, kept.c_str());
                QCOMPARE(controlFieldTexts(y0).reuse.back(), '*');
                QVERIFY(instructionText(ins, y0).find(".reuse*") != std::string::npos);
                // Cleared flags under Y0: no mark and no star.
                Control none = y0;
                none.reuse = 0;
                QCOMPARE(count(operandText(ins, none), ".reuse"), 0);
                QVERIFY(controlFieldTexts(none).reuse.find('*') == std::string::npos);
                ++checked;
            }
        QVERIFY2(checked > 8, "the SGEMM sample has too few FFMAs that cache an operand");
    }
};

QTEST_MAIN(TestInstructionText)
#include "test_instruction_text.moc"
