// The source map against nvdisasm's own reading of the same line tables (--print-line-info, -gi,
// --print-line-info-ptx) on the captured Triton cubin and a CUDA cubin built with -lineinfo, known
// lines with their text, a cubin without line info, and hostile line programs.
#include "core/cubin/line_program.h"
#include "core/cubin/source_map.h"
#include "core/sass/nvdisasm.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QtTest>

#include <cstring>
#include <map>
#include <random>

using namespace sassx;

namespace {

const QString kAttention =
    QStringLiteral(SASSX_SOURCE_DIR "/samples/triton/captured/attention_fwd.sm_90.cubin");
const QString kLineInfo = QStringLiteral(SASSX_CUBIN_SAMPLES "/rmsnorm_lineinfo_sm_90.cubin");

// What nvdisasm prints above an instruction, carried forward to every instruction until it changes.
struct Printed
{
    QString file;
    int line = 0;
    QString callFile; // -gi: the call site of an inlined line
    int callLine = 0;
};

// Offset → the innermost location nvdisasm prints for it (the first //## line of a group).
std::map<uint64_t, Printed> nvdisasmLines(const Cubin& cubin, const std::string& flag)
{
    auto text = runNvdisasm(cubin.bytes(), {"-c", flag});
    if (!text) return {};
    static const QRegularExpression fileLine(
        QString::fromLatin1(R"re(//## File "([^"]*)", line (\d+)(?: inlined at "([^"]*)", line (\d+))?)re"));
    static const QRegularExpression instruction(QString::fromLatin1(R"(^\s*/\*([0-9a-f]{4,})\*/)"));
    std::map<uint64_t, Printed> out;
    Printed current;
    bool inGroup = false;
    for (const QString& line : QString::fromStdString(*text).split('\n')) {
        if (auto m = fileLine.match(line); m.hasMatch()) {
            if (!inGroup)
                current = Printed{m.captured(1), m.captured(2).toInt(), m.captured(3), m.captured(4).toInt()};
            inGroup = true;
        } else if (auto i = instruction.match(line); i.hasMatch()) {
            inGroup = false;
            if (current.line) out[i.captured(1).toULongLong(nullptr, 16)] = current;
        }
    }
    return out;
}

struct Loaded
{
    Cubin cubin;
    const Kernel* kernel = nullptr;
};

std::optional<Loaded> load(const QString& path, const char* kernel)
{
    auto cubin = Cubin::load(path.toStdString());
    if (!cubin) return std::nullopt;
    Loaded l{std::move(*cubin), nullptr};
    l.kernel = l.cubin.findKernel(kernel);
    if (!l.kernel) return std::nullopt;
    return l;
}

// A copy of `bytes` with one line section's contents changed by `edit`.
std::vector<uint8_t> withSection(const Cubin& cubin, const char* name,
                                 const std::function<void(uint8_t*, size_t)>& edit)
{
    std::vector<uint8_t> bytes = cubin.bytes();
    const int s = cubin.findSection(name);
    const auto data = cubin.sectionData(s);
    edit(bytes.data() + (data.data() - cubin.bytes().data()), data.size());
    return bytes;
}

} // namespace

class TestSourceMap : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tritonAgreesWithNvdisasm();
    void tritonKnownLinesAndText();
    void inlinedCudaAgreesWithNvdisasm();
    void noLineInfoIsEmpty();
    void hostileLineProgramsFailInOneLine();
};

void TestSourceMap::tritonAgreesWithNvdisasm()
{
    auto l = load(kAttention, "attention_fwd");
    QVERIFY(l);
    auto map = buildSourceMap(l->cubin, *l->kernel);
    QVERIFY2(map, map ? "" : map.message().c_str());
    QCOMPARE(map->byPosition.size(), size_t(l->kernel->codeSize / 16));
    QVERIFY(map->hasSource);
    QVERIFY(map->hasPtx);
    const auto source = nvdisasmLines(l->cubin, "--print-line-info");
    const auto ptx = nvdisasmLines(l->cubin, "--print-line-info-ptx");
    if (source.empty()) QSKIP("nvdisasm not found or printed no line info");
    // Every instruction nvdisasm places, the map places the same; nvdisasm places most of them.
    QVERIFY(source.size() > map->byPosition.size() * 9 / 10);
    for (const auto& [offset, printed] : source) {
        const SourceLocation& at = map->byPosition[offset / 16];
        QVERIFY2(at.hasSource(), qPrintable(QString::number(offset, 16)));
        QCOMPARE(QString::fromStdString(map->files[size_t(at.file)].path), printed.file);
        QCOMPARE(int(at.line), printed.line);
    }
    QVERIFY(ptx.size() > map->byPosition.size() * 9 / 10);
    for (const auto& [offset, printed] : ptx) {
        QCOMPARE(printed.file, QStringLiteral(".nv_debug_ptx_txt"));
        QCOMPARE(int(map->byPosition[offset / 16].ptxLine), printed.line);
    }
}

void TestSourceMap::tritonKnownLinesAndText()
{
    auto l = load(kAttention, "attention_fwd");
    QVERIFY(l);
    auto map = buildSourceMap(l->cubin, *l->kernel);
    QVERIFY(map);
    // /*0010*/ S2UR UR4, SR_CTAID.Y is `bh = tl.program_id(1)` (attention.py line 16) and PTX line 42.
    const SourceLocation& at = map->byPosition[1];
    QCOMPARE(map->describe(at), std::string("attention.py:16"));
    QCOMPARE(at.ptxLine, 42u);
    QCOMPARE(std::string(map->ptxText(at.ptxLine)), std::string("mov.u32 \t%r63, %ctaid.y;"));
    QCOMPARE(std::string(map->ptxText(24)), std::string("{")); // /*0000*/: the function's opening brace
    QVERIFY(map->ptxText(uint32_t(map->ptxLines.size() + 1)).empty());
    // Not read yet: no text. The recorded path may not exist here; the file sits one level above the
    // cubin (samples/triton/attention.py), which is where a search directory finds it.
    QVERIFY(map->sourceText(at).empty());
    const QString captured = QFileInfo(kAttention).absolutePath();
    loadSourceTexts(*map, {captured.toStdString(), QFileInfo(captured).absolutePath().toStdString()});
    const SourceFile& file = map->files[size_t(at.file)];
    QCOMPARE(file.name, std::string("attention.py"));
    QVERIFY(!file.foundAt.empty());
    QCOMPARE(std::string(map->sourceText(at)), std::string("    bh = tl.program_id(1)"));
    // The standard library's file (tl.max and the like, inlined by Triton as file 2) is a second file.
    QVERIFY(map->files.size() >= 2);
}

void TestSourceMap::inlinedCudaAgreesWithNvdisasm()
{
    if (!QFileInfo::exists(kLineInfo)) QSKIP("the -lineinfo CUDA cubin was not built (no nvcc)");
    auto l = load(kLineInfo, "rmsnorm");
    QVERIFY(l);
    auto map = buildSourceMap(l->cubin, *l->kernel);
    QVERIFY2(map, map ? "" : map.message().c_str());
    const auto printed = nvdisasmLines(l->cubin, "-gi");
    if (printed.empty()) QSKIP("nvdisasm not found or printed no line info");
    int inlined = 0;
    for (const auto& [offset, p] : printed) {
        const SourceLocation& at = map->byPosition[offset / 16];
        QCOMPARE(QString::fromStdString(map->files[size_t(at.file)].path), p.file);
        QCOMPARE(int(at.line), p.line);
        if (p.callFile.isEmpty()) {
            QCOMPARE(at.callFile, -1);
            continue;
        }
        ++inlined;
        QVERIFY(at.callFile >= 0);
        QCOMPARE(QString::fromStdString(map->files[size_t(at.callFile)].path), p.callFile);
        QCOMPARE(int(at.callLine), p.callLine);
        QVERIFY(at.function >= 0);
    }
    QVERIFY(inlined > 0);
    // /*00d0*/ HADD2.F32 converts a half: cuda_fp16.hpp's __half22float2, inlined at rmsnorm.cu:46.
    const SourceLocation& at = map->byPosition[0xd0 / 16];
    QCOMPARE(map->describe(at), std::string("cuda_fp16.hpp:980"));
    QCOMPARE(map->describeCallSite(at), std::string("rmsnorm.cu:46"));
    QVERIFY2(map->functions[size_t(at.function)].find("__half22float2(") != std::string::npos,
             map->functions[size_t(at.function)].c_str()); // demangled
}

void TestSourceMap::noLineInfoIsEmpty()
{
    auto l = load(QStringLiteral(SASSX_SAMPLES_DIR "/rmsnorm.sm_90.cubin"), "rmsnorm");
    if (!l) QSKIP("the sample cubins were not built");
    QCOMPARE(l->cubin.findSection(".debug_line"), -1);
    auto map = buildSourceMap(l->cubin, *l->kernel);
    QVERIFY(map);
    QVERIFY(map->empty());
    QVERIFY(!map->notes.empty());
    QVERIFY(QString::fromStdString(map->notes.front()).contains("-lineinfo"));
    QCOMPARE(map->byPosition.size(), size_t(l->kernel->codeSize / 16));
    QVERIFY(map->describe(map->byPosition.front()).empty());
}

void TestSourceMap::hostileLineProgramsFailInOneLine()
{
    auto l = load(kAttention, "attention_fwd");
    QVERIFY(l);
    auto check = [&](const std::vector<uint8_t>& bytes, bool mustFail) {
        auto cubin = Cubin::parse(bytes);
        QVERIFY(cubin);
        const Kernel* k = cubin->findKernel("attention_fwd");
        QVERIFY(k);
        auto map = buildSourceMap(*cubin, *k);
        if (mustFail) QVERIFY(!map);
        if (!map) {
            QVERIFY(!map.message().empty());
            QVERIFY(map.message().find('\n') == std::string::npos);
        }
    };
    // A unit longer than its section.
    check(withSection(l->cubin, ".debug_line", [](uint8_t* d, size_t) { std::memset(d, 0x7f, 3); }), true);
    check(withSection(l->cubin, ".nv_debug_line_sass", [](uint8_t* d, size_t) { std::memset(d, 0x7f, 3); }),
          true);
    // The program cut short: the unit ends inside an operand or without DW_LNE_end_sequence.
    check(withSection(l->cubin, ".debug_line",
                      [](uint8_t* d, size_t n) {
                          const uint32_t len = uint32_t(n - 4 - 40);
                          std::memcpy(d, &len, 4);
                      }),
          true);
    // A file table without its terminators (the header ends at 0x9b, where the program starts): the rows
    // still decode, the files have no names, and a note says why.
    {
        auto bytes = withSection(l->cubin, ".debug_line", [](uint8_t* d, size_t n) {
            for (size_t i = 0x18; i < 0x9b && i < n; ++i)
                if (d[i] == 0) d[i] = 'x';
        });
        auto cubin = Cubin::parse(bytes);
        QVERIFY(cubin);
        auto map = buildSourceMap(*cubin, *cubin->findKernel("attention_fwd"));
        QVERIFY2(map, map ? "" : map.message().c_str());
        QVERIFY(map->hasSource);
        QCOMPARE(map->describe(map->byPosition[1]), std::string("file 1:16"));
        QVERIFY(std::any_of(map->notes.begin(), map->notes.end(),
                            [](const std::string& n) { return n.find("file table") != std::string::npos; }));
    }
    // Random damage anywhere in either program: an error of one line or a map, never a crash.
    std::mt19937 rng(46);
    for (const char* section : kLineTableSections)
        for (int round = 0; round < 300; ++round)
            check(withSection(l->cubin, section,
                              [&](uint8_t* d, size_t n) {
                                  for (int k = 0; k < 4; ++k)
                                      d[rng() % n] = uint8_t(rng());
                              }),
                  false);
}

QTEST_GUILESS_MAIN(TestSourceMap)
#include "test_source_map.moc"
