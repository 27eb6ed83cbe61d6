// Source lines with what their instructions add up to, on real cubins: the captured Triton attention
// kernel (source text found beside the input), the -lineinfo CUDA RMSNorm with recorded H100 stall
// samples, and a variant that moves instructions.
#include "core/cubin/source_map.h"
#include "core/session/source_lines.h"
#include "core/session/workspace.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <numeric>

using namespace sassx;

namespace {

std::shared_ptr<const KernelWorkspace> openKernel(const QString& path)
{
    auto ws = Workspace::open(path.toStdString());
    if (!ws) return nullptr;
    auto k = (*ws)->kernel();
    return k ? *k : nullptr;
}

size_t instructionsIn(const std::vector<SourceLineSummary>& lines)
{
    size_t n = 0;
    for (const auto& l : lines)
        n += l.instructions.size();
    return n;
}

} // namespace

class TestSourceLines : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void linesCoverEveryInstructionOnce();
    void textFoundBesideTheInput();
    void samplesSumPerLine();
    void variantChangesPerLine();
};

void TestSourceLines::linesCoverEveryInstructionOnce()
{
    auto k = openKernel(SASSX_SOURCE_DIR "/samples/triton/captured/attention_fwd.sm_90.cubin");
    QVERIFY(k);
    auto map = kernelSourceMap(*k);
    QVERIFY2(map, map ? "" : map.message().c_str());
    const auto lines = summarizeSourceLines(*map);
    const size_t n = k->analysis().listing.instructions.size();
    QCOMPARE(instructionsIn(lines), n);
    // Sorted by file then line, each line once, and each instruction in the entry of its own line.
    for (size_t i = 1; i < lines.size(); ++i)
        QVERIFY(std::make_pair(lines[i - 1].file, lines[i - 1].line) <
                    std::make_pair(lines[i].file, lines[i].line) ||
                lines[i].file < 0);
    for (const auto& l : lines)
        for (InstrId i : l.instructions) {
            QCOMPARE(map->byPosition[i.value()].file, l.file);
            QCOMPARE(map->byPosition[i.value()].line, l.line);
            QCOMPARE(sourceLineOf(lines, i), int(&l - lines.data()));
        }
    // attention.py:16 (`bh = tl.program_id(1)`) is one instruction, /*0010*/ S2UR UR4, SR_CTAID.Y.
    const int entry = sourceLineOf(lines, InstrId(1));
    QVERIFY(entry >= 0);
    QCOMPARE(map->files[size_t(lines[size_t(entry)].file)].name, std::string("attention.py"));
    QCOMPARE(lines[size_t(entry)].line, 16u);
    QVERIFY(lines[size_t(entry)].instructions == std::vector<InstrId>{InstrId(1)});
    // No samples, no variant: nothing counted.
    for (const auto& l : lines)
        QVERIFY(l.samples == 0 && l.changed == 0);
}

void TestSourceLines::textFoundBesideTheInput()
{
    // A copy of the cubin with the .py beside it, and the recorded path made one that does not exist:
    // the input's directory is searched.
    QTemporaryDir dir;
    const QString cubin = dir.filePath("attention_fwd.sm_90.cubin");
    QVERIFY(QFile::copy(SASSX_SOURCE_DIR "/samples/triton/captured/attention_fwd.sm_90.cubin", cubin));
    QVERIFY(QFile::copy(SASSX_SOURCE_DIR "/samples/triton/attention.py", dir.filePath("attention.py")));
    const auto dirs = sourceSearchDirs(cubin.toStdString());
    QCOMPARE(dirs.size(), size_t(2));
    QCOMPARE(QString::fromStdString(dirs[0]), dir.path());
    QCOMPARE(QString::fromStdString(dirs[1]), QFileInfo(dir.path()).absolutePath());
    QCOMPARE(sourceSearchDirs(dir.path().toStdString())[0], dir.path().toStdString()); // a Triton cache entry
    auto k = openKernel(cubin);
    QVERIFY(k);
    auto map = buildSourceMap(k->cubin(), *k->cubin().findKernel("attention_fwd"));
    QVERIFY(map);
    const int file = map->byPosition[1].file;
    map->files[size_t(file)].path = dir.filePath("no/such/attention.py").toStdString();
    loadSourceTexts(*map, dirs);
    QCOMPARE(QString::fromStdString(map->files[size_t(file)].foundAt), dir.filePath("attention.py"));
    QCOMPARE(std::string(map->sourceText(map->byPosition[1])), std::string("    bh = tl.program_id(1)"));
    // Found nowhere: no text, and nothing else changes.
    SourceMap lost = *map;
    lost.files[size_t(file)].lines.clear();
    lost.files[size_t(file)].foundAt.clear();
    loadSourceTexts(lost, {});
    QVERIFY(lost.files[size_t(file)].foundAt.empty());
    QVERIFY(lost.sourceText(lost.byPosition[1]).empty());
    QCOMPARE(lost.describe(lost.byPosition[1]), std::string("attention.py:16"));
}

void TestSourceLines::samplesSumPerLine()
{
    auto k = openKernel(SASSX_CUBIN_SAMPLES "/rmsnorm_lineinfo_sm_90.cubin");
    if (!k) QSKIP("the -lineinfo CUDA cubin was not built (no nvcc)");
    QFile f(SASSX_SOURCE_DIR "/tests/data/stalls/rmsnorm.h100.stalls.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto profile = eval::stallProfileFromJson(nlohmann::json::parse(f.readAll().toStdString()));
    QVERIFY(profile);
    // -lineinfo changes no instruction, so the samples of the plain build land on the same code.
    auto stalls = mapStalls(*profile, k->analysis(), Schedule::identity(k->analysis()));
    QVERIFY2(stalls, stalls ? "" : stalls.message().c_str());
    auto map = kernelSourceMap(*k);
    QVERIFY(map);
    QVERIFY(map->hasSource);
    const auto lines = summarizeSourceLines(*map, &*stalls);
    uint64_t total = 0, hottest = 0;
    for (const auto& l : lines) {
        uint64_t own = 0;
        for (InstrId i : l.instructions)
            own += stalls->byOriginal[i].samples;
        QCOMPARE(l.samples, own);
        total += l.samples;
        hottest = std::max(hottest, l.samples);
    }
    QCOMPARE(total, stalls->samples);
    QVERIFY(total > 0);
    QVERIFY(hottest < total); // spread over several lines, not one
}

void TestSourceLines::variantChangesPerLine()
{
    auto k = openKernel(SASSX_SOURCE_DIR "/samples/triton/captured/attention_fwd.sm_90.cubin");
    QVERIFY(k);
    auto map = kernelSourceMap(*k);
    QVERIFY(map);
    const Schedule original = Schedule::identity(k->analysis());
    // Two legal moves in different places of the kernel.
    const auto moves = k->legalMoves(original, false);
    QVERIFY(moves.size() > 10);
    std::vector<Edit> edits{Edit::move(moves.front().first, moves.front().second),
                            Edit::move(moves.back().first, moves.back().second)};
    auto variant = k->schedule(edits);
    QVERIFY2(variant, variant ? "" : variant.message().c_str());
    auto diff = diffAgainstOriginal(k->analysis(), *variant);
    QVERIFY2(diff, diff ? "" : diff.message().c_str());
    QVERIFY(diff->movedCount() > 0);
    const auto lines = summarizeSourceLines(*map, nullptr, &*diff);
    size_t moved = 0, changed = 0, control = 0;
    for (const auto& l : lines) {
        moved += l.moved;
        changed += l.changed;
        control += l.controlChanged;
        QVERIFY(l.changed <= l.instructions.size());
        QVERIFY(l.changed >= std::max(l.moved, l.controlChanged));
    }
    QCOMPARE(moved, diff->movedCount());
    QCOMPARE(control, diff->controlChangedCount());
    // The original against itself: nothing changed anywhere.
    auto same = diffAgainstOriginal(k->analysis(), original);
    QVERIFY(same);
    for (const auto& l : summarizeSourceLines(*map, nullptr, &*same))
        QCOMPARE(l.changed, 0u);
}

QTEST_GUILESS_MAIN(TestSourceLines)
#include "test_source_lines.moc"
