// The ELF layer against facts we know about real nvcc output, and against hostile bytes.
#include "core/cubin/cubin.h"
#include "core/cubin/fatbin.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include <sys/stat.h>

using namespace sassx;

namespace {

const std::string kSamples = SASSX_CUBIN_SAMPLES;
const std::string kHostile = SASSX_CUBIN_HOSTILE;
constexpr bool kHaveNvcc = SASSX_CUBIN_HAVE_NVCC;

// Mangled names of kernels.cu.
const std::string kParams = "_Z13params_kernelfPdic";
const std::string kShared = "_Z13shared_kernelPKfPfi";
constexpr uint32_t kExitOpcode = 0x94d; // low 12 bits of EXIT on sm_70+

std::vector<uint8_t> readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

template <class T> T le(const std::vector<uint8_t>& b, uint64_t off)
{
    T v{};
    std::memcpy(&v, b.data() + off, sizeof(T));
    return v;
}

#define REQUIRE_SAMPLES()                                                                                    \
    do {                                                                                                     \
        if (!kHaveNvcc) QSKIP("nvcc not found at configure time: no sample cubins");                         \
    } while (0)

// parse and extractCubins must return (never crash, never read out of bounds: run under ASan), and an
// Error must be one non-empty line.
void checkSurvives(const std::vector<uint8_t>& bytes)
{
    auto c = Cubin::parse(bytes);
    if (!c) {
        QVERIFY(!c.message().empty());
        QVERIFY2(c.message().find('\n') == std::string::npos, c.message().c_str());
    } else {
        // A parsed cubin must be safe to walk.
        for (size_t i = 0; i < c->sections().size(); ++i)
            (void)c->sectionData(static_cast<int>(i)).size();
    }
    auto e = extractCubins(bytes);
    if (!e) QVERIFY(!e.message().empty());
}

} // namespace

class TestCubin : public QObject
{
    Q_OBJECT

private slots:
    void realCubin_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("sm");
        for (int sm : {80, 86, 89, 90})
            QTest::newRow(qPrintable(QString("sm_%1").arg(sm)))
                << QString("kernels_sm_%1.cubin").arg(sm) << sm;
    }

    void realCubin()
    {
        REQUIRE_SAMPLES();
        QFETCH(QString, file);
        QFETCH(int, sm);
        auto c = Cubin::load(kSamples + "/" + file.toStdString());
        QVERIFY2(c.ok(), c.ok() ? "" : c.message().c_str());
        QCOMPARE(c->smVersion(), sm);
        QCOMPARE(c->archName(), "sm_" + std::to_string(sm));
        QVERIFY(!c->archSuffixA());
        QCOMPARE(c->kernels().size(), size_t(2));

        const Kernel* p = c->findKernel(kParams);
        QVERIFY(p);
        QVERIFY(p->entry);
        QVERIFY(p->symbol >= 0);
        QCOMPARE(c->symbols()[p->symbol].name, kParams);
        QCOMPARE(c->sections()[p->textSection].name, ".text." + kParams);
        QVERIFY(p->codeSize > 0 && p->codeSize % 16 == 0);
        QCOMPARE(c->sectionData(p->textSection).size(), p->codeSize);
        QVERIFY(p->nvInfoSection > 0);

        // (float a, double* p, int n, char c): ordinals 0..3, natural alignment in the param bank.
        QCOMPARE(p->params.size(), size_t(4));
        const uint32_t offsets[] = {0, 8, 16, 20};
        const uint32_t sizes[] = {4, 8, 4, 1};
        for (uint32_t i = 0; i < 4; ++i) {
            QCOMPARE(p->params[i].ordinal, i);
            QCOMPARE(p->params[i].offset, offsets[i]);
            QCOMPARE(p->params[i].size, sizes[i]);
        }
        QCOMPARE(p->paramBankSize.value_or(0), 21u);
        QVERIFY(p->regCount.has_value() && *p->regCount > 0 && *p->regCount <= 255);
        for (uint8_t id : p->unknownAttributes) // newer ptxas may add ids: collected, never misnamed
            QVERIFY(!nvinfo::isKnownAttribute(id));

        // EXIT_INSTR_OFFSETS lists exactly the EXIT instructions of the code.
        const auto text = c->sectionData(p->textSection);
        std::set<uint32_t> exits;
        for (uint32_t off = 0; off < text.size(); off += 16) {
            uint64_t lo = 0;
            std::memcpy(&lo, text.data() + off, 8);
            if ((lo & 0xfff) == kExitOpcode) exits.insert(off);
        }
        QVERIFY(exits.size() >= 2); // the early return and the end
        const InstrOffsetList* exitList = nullptr;
        for (const auto& l : p->instrOffsets)
            if (l.attribute == nvinfo::EXIT_INSTR_OFFSETS) exitList = &l;
        QVERIFY(exitList);
        QCOMPARE(std::set<uint32_t>(exitList->offsets.begin(), exitList->offsets.end()), exits);
        QCOMPARE(exitList->fileOffsets.size(), exitList->offsets.size());
        for (size_t i = 0; i < exitList->offsets.size(); ++i)
            QCOMPARE(le<uint32_t>(c->bytes(), exitList->fileOffsets[i]), exitList->offsets[i]);

        const Kernel* s = c->findKernel(kShared);
        QVERIFY(s);
        QCOMPARE(s->maxThreads.value_or(0), 256u); // __launch_bounds__(256)
        QVERIFY(s->sharedMemStatic >= 1024);       // float tile[256]
        QCOMPARE(s->params.size(), size_t(3));
        QCOMPARE(s->params[2].size, 4u);
        QCOMPARE(s->params[2].offset, 16u);
        QVERIFY(s->regCount.has_value());
        QVERIFY(!s->globalAttributes.empty());
        QVERIFY(!c->globalAttributes().empty());
    }

    void archSuffix()
    {
        REQUIRE_SAMPLES();
        auto a = Cubin::load(kSamples + "/kernels_sm_90a.cubin");
        QVERIFY2(a.ok(), a.ok() ? "" : a.message().c_str());
        QCOMPARE(a->smVersion(), 90);
        QVERIFY(a->archSuffixA());
        QCOMPARE(a->archName(), std::string("sm_90a"));
        QCOMPARE(a->abiVersion(), uint8_t(8));
    }

    void relocations()
    {
        REQUIRE_SAMPLES();
        auto c = Cubin::load(kSamples + "/kernels_rdc_sm_90.cubin");
        QVERIFY2(c.ok(), c.ok() ? "" : c.message().c_str());
        const Kernel* s = c->findKernel(kShared);
        QVERIFY(s);
        // -rdc leaves g_counter and the shared tile to the linker: relocations inside the text.
        QVERIFY(!s->relocations.empty());
        for (int idx : s->relocations) {
            const Relocation& r = c->relocations()[idx];
            QCOMPARE(r.targetSection, s->textSection);
            QVERIFY(r.offset < s->codeSize);
            QVERIFY(r.hasAddend);
            QVERIFY(r.symbol < c->symbols().size());
            QCOMPARE(le<uint64_t>(c->bytes(), r.fileOffset), r.offset);
            QCOMPARE(c->sections()[r.section].name, ".rela.text." + kShared);
        }
        bool namesCounter = false;
        for (int idx : s->relocations)
            namesCounter |= c->symbols()[c->relocations()[idx].symbol].name == "g_counter";
        QVERIFY(namesCounter);
    }

    void indirectBranchTargets()
    {
        REQUIRE_SAMPLES();
        auto c = Cubin::load(kSamples + "/indirect_sm_90.cubin");
        QVERIFY2(c.ok(), c.ok() ? "" : c.message().c_str());
        const Kernel* k = c->findKernel("_Z13switch_kernelPfi");
        QVERIFY(k);
        const InstrOffsetList* list = nullptr;
        for (const auto& l : k->instrOffsets)
            if (l.attribute == nvinfo::INDIRECT_BRANCH_TARGETS) list = &l;
        QVERIFY2(list, "a 7-way switch compiles to a jump table");
        QVERIFY(list->offsets.size() >= 4);
        for (size_t i = 0; i < list->offsets.size(); ++i) {
            QVERIFY(list->offsets[i] < k->codeSize);
            QCOMPARE(list->offsets[i] % 16, 0u);
            QCOMPARE(le<uint32_t>(c->bytes(), list->fileOffsets[i]), list->offsets[i]);
        }
    }

    void attributeNames()
    {
        QCOMPARE(nvinfo::attributeName(nvinfo::REGCOUNT), std::string("EIATTR_REGCOUNT"));
        QCOMPARE(nvinfo::attributeName(nvinfo::EXIT_INSTR_OFFSETS), std::string("EIATTR_EXIT_INSTR_OFFSETS"));
        QCOMPARE(nvinfo::attributeName(nvinfo::KPARAM_INFO), std::string("EIATTR_KPARAM_INFO"));
        QCOMPARE(nvinfo::attributeName(0xf3), std::string("EIATTR_0xf3"));
        QVERIFY(nvinfo::holdsInstructionOffsets(nvinfo::SW_WAR_MEMBAR_SYS_INSTR_OFFSETS));
        QVERIFY(!nvinfo::holdsInstructionOffsets(nvinfo::REGCOUNT));
        QVERIFY(!nvinfo::isKnownAttribute(0xf3));
    }

    void extraction_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("reference"); // direct cubin the sm_90 entry must equal
        QTest::addColumn<QString>("compression");
        QTest::newRow("cubin") << "kernels_sm_90.cubin"
                               << "kernels_sm_90.cubin"
                               << "none";
        QTest::newRow("fatbin") << "kernels_sm_90.fatbin"
                                << "kernels_sm_90.cubin"
                                << "none";
        QTest::newRow("fatbin zstd") << "kernels_zstd_sm_90.fatbin"
                                     << "kernels_sm_90.cubin"
                                     << "zstd";
        QTest::newRow("fatbin lz4") << "kernels_lz4_sm_90.fatbin"
                                    << "kernels_sm_90.cubin"
                                    << "lz4";
        QTest::newRow("executable") << "host_exe"
                                    << "kernels_sm_90.cubin"
                                    << "none";
        QTest::newRow("rdc object") << "kernels_rdc.o"
                                    << "kernels_rdc_sm_90.cubin"
                                    << "zstd";
    }

    void extraction()
    {
        REQUIRE_SAMPLES();
        QFETCH(QString, file);
        QFETCH(QString, reference);
        QFETCH(QString, compression);
        if (compression == "zstd" && !haveZstdSupport()) QSKIP("built without libzstd");
        if (compression == "lz4" && !haveLz4Support()) QSKIP("built without liblz4");
        const auto ref = readFile(kSamples + "/" + reference.toStdString());
        QVERIFY(!ref.empty());
        auto all = extractCubins(readFile(kSamples + "/" + file.toStdString()));
        QVERIFY2(all.ok(), all.ok() ? "" : all.message().c_str());
        bool found = false;
        for (const auto& e : *all) {
            QVERIFY(looksLikeCubin(e.bytes));
            QVERIFY(!e.origin.empty());
            if (e.smVersion == 90 && e.bytes == ref) {
                found = true;
                QCOMPARE(e.compression, compression.toStdString());
            }
        }
        QVERIFY2(found, "no extracted sm_90 entry equals the direct cubin");
        if (file == "host_exe") { // built for sm_80 too
            const auto ref80 = readFile(kSamples + "/kernels_sm_80.cubin");
            bool has80 = false;
            for (const auto& e : *all)
                has80 |= e.smVersion == 80 && e.bytes == ref80;
            QVERIFY(has80);
        }
    }

    void ptxOnlyFatbin()
    {
        REQUIRE_SAMPLES();
        auto all = extractCubins(readFile(kSamples + "/kernels_ptx_only.fatbin"));
        QVERIFY(!all.ok());
        QVERIFY2(all.message().find("no SASS") != std::string::npos, all.message().c_str());
    }

    void hostile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("viaExtract"); // fatbin/host inputs go through extractCubins
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << "" << false << "bad magic";
        QTest::newRow("bad magic") << "bad_magic.bin" << false << "bad magic";
        QTest::newRow("truncated") << "truncated_header.bin" << false << "truncated ELF header";
        QTest::newRow("elf32") << "elf32.bin" << false << "not a 64-bit ELF";
        QTest::newRow("big endian") << "big_endian.bin" << false << "not a little-endian ELF";
        QTest::newRow("x86 machine") << "wrong_machine.bin" << false << "e_machine 62";
        QTest::newRow("shoff") << "shoff_past_end.bin" << false << "outside the file";
        QTest::newRow("shnum") << "shnum_past_end.bin" << false << "extends past the end of the file";
        QTest::newRow("shstrndx") << "shstrndx_out_of_range.bin" << false << "name table index 77";
        QTest::newRow("shstrndx zero") << "shstrndx_zero.bin" << false << "no section name table";
        QTest::newRow("section size") << "section_size_overflow.bin" << false << "extends past the end";
        QTest::newRow("name offset") << "name_offset_out_of_range.bin" << false << "name offset 0x10000";
        QTest::newRow("nvinfo length") << "nvinfo_length_past_end.bin" << false << "claims 64 payload bytes";
        QTest::newRow("nvinfo symbol") << "nvinfo_symbol_out_of_range.bin" << false << "names symbol 99";
        QTest::newRow("exit offset") << "exit_offset_outside_code.bin" << false << "outside .text.k";
        QTest::newRow("reloc symbol") << "reloc_symbol_out_of_range.bin" << false << "names symbol 500";
        QTest::newRow("reloc offset") << "reloc_offset_outside_section.bin" << false << "is outside .text.k";
        QTest::newRow("fatbin size") << "fatbin_size_past_end.bin" << true << "past the end of its data";
        QTest::newRow("fatbin not elf") << "fatbin_entry_not_elf.bin" << true << "does not hold a CUDA ELF";
        QTest::newRow("host no fatbin") << "host_without_fatbin.bin" << true << "no .nv_fatbin";
        QTest::newRow("zstd corrupt") << "fatbin_zstd_corrupt.bin" << true << "zstd";
    }

    void hostile()
    {
        QFETCH(QString, file);
        QFETCH(bool, viaExtract);
        QFETCH(QString, expected);
        std::vector<uint8_t> bytes;
        if (!file.isEmpty()) {
            bytes = readFile(kHostile + "/" + file.toStdString());
            QVERIFY2(!bytes.empty(), qPrintable("missing test file " + file));
        }
        std::string message;
        if (viaExtract) {
            auto r = extractCubins(bytes);
            QVERIFY(!r.ok());
            message = r.message();
        } else {
            auto r = Cubin::parse(bytes);
            QVERIFY(!r.ok());
            message = r.message();
        }
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
        QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
        checkSurvives(bytes);
    }

    // Files that are not regular files are refused before they are opened, in one line that says
    // which kind they are: opening a FIFO for reading would wait for a writer forever.
    void specialFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string fifo = (dir.path() + QStringLiteral("/k.cubin")).toStdString();
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        const struct
        {
            std::string path, reason;
        } cases[] = {
            {fifo, "not a regular file (a FIFO)"},
            {dir.path().toStdString(), "is a directory"},
            {dir.path().toStdString() + "/none.cubin", "no such file or directory"},
            {"/dev/null", "not a regular file (a device)"},
        };
        for (const auto& c : cases) {
            auto r = Cubin::load(c.path);
            QVERIFY2(!r, c.path.c_str());
            QVERIFY2(r.message() == c.path + ": " + c.reason, r.message().c_str());
        }
    }

    void minimalSynthetic()
    {
        auto c = Cubin::parse(readFile(kHostile + "/minimal_ok.bin"));
        QVERIFY2(c.ok(), c.ok() ? "" : c.message().c_str());
        QCOMPARE(c->kernels().size(), size_t(1));
        QCOMPARE(c->kernels()[0].name, std::string("k"));
        QCOMPARE(c->smVersion(), 90);
        QCOMPARE(c->kernels()[0].symbol, 1);
    }

    // Systematic mutations of real files: truncations, and ELF/section/record fields overwritten
    // with 0, all-ones, and large values. Only survival is asserted (see checkSurvives).
    void mutations_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("sm_80 cubin") << "kernels_sm_80.cubin";
        QTest::newRow("sm_90 cubin") << "kernels_sm_90.cubin";
        QTest::newRow("rdc cubin") << "kernels_rdc_sm_90.cubin";
        QTest::newRow("indirect cubin") << "indirect_sm_90.cubin";
        QTest::newRow("zstd fatbin") << "kernels_zstd_sm_90.fatbin";
        QTest::newRow("lz4 fatbin") << "kernels_lz4_sm_90.fatbin";
        QTest::newRow("rdc object") << "kernels_rdc.o";
    }

    void mutations()
    {
        REQUIRE_SAMPLES();
        QFETCH(QString, file);
        const auto orig = readFile(kSamples + "/" + file.toStdString());
        QVERIFY(orig.size() > 64);
        int runs = 0;

        // Truncation: every offset in the first 512 bytes, then a stride through the rest.
        for (size_t n = 0; n < orig.size(); n += (n < 512 ? 1 : 37)) {
            checkSurvives(std::vector<uint8_t>(orig.begin(), orig.begin() + n));
            ++runs;
        }

        const uint64_t values[] = {0,
                                   0xff,
                                   0xffff,
                                   0xffffffffull,
                                   0xffffffffffffffffull,
                                   0x7fffffffffffffffull,
                                   orig.size(),
                                   orig.size() + 1,
                                   orig.size() - 1,
                                   0x80000000ull};
        auto overwrite = [&](size_t off, int width) {
            for (uint64_t v : values) {
                if (off + width > orig.size()) return;
                auto m = orig;
                std::memcpy(m.data() + off, &v, width); // little-endian: low bytes of v
                checkSurvives(m);
                ++runs;
            }
        };
        // Every ELF header byte/field.
        for (size_t off = 0; off < 64; ++off)
            for (int w : {1, 2, 4, 8})
                overwrite(off, w);

        // Section headers and the records they point at, when the file is a device ELF.
        auto c = Cubin::parse(orig);
        if (c.ok()) {
            const uint64_t shoff = le<uint64_t>(orig, 40);
            for (size_t i = 0; i < c->sections().size(); ++i) {
                const size_t base = shoff + i * 64;
                for (size_t f : {0, 4, 24, 32, 40, 44, 56})
                    overwrite(base + f, f >= 24 && f <= 32 ? 8 : (f == 56 ? 8 : 4));
            }
            // Every 4-byte word of every .nv.info* section: formats, ids, lengths, payloads.
            for (size_t i = 0; i < c->sections().size(); ++i) {
                const ElfSection& s = c->sections()[i];
                if (s.name.rfind(".nv.info", 0) != 0 && s.name != ".nv.compat" &&
                    s.name.rfind(".rel", 0) != 0 && s.name != ".symtab")
                    continue;
                for (uint64_t off = 0; off < s.size; off += 2)
                    overwrite(s.offset + off, 2);
            }
        } else {
            // Fatbins / host ELFs: hammer the first container and entry headers.
            for (size_t off = 0; off < std::min<size_t>(orig.size(), 4096); off += 2)
                overwrite(off, off % 8 == 0 ? 8 : 2);
        }

        // Random byte flips with a fixed seed (reproducible).
        uint64_t rng = 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < 2000; ++i) {
            auto m = orig;
            for (int k = 0; k < 4; ++k) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                m[(rng >> 33) % m.size()] ^= static_cast<uint8_t>(1u << ((rng >> 20) & 7));
            }
            checkSurvives(m);
            ++runs;
        }
        qInfo("%d mutated inputs of %s survived", runs, qPrintable(file));
    }
};

QTEST_GUILESS_MAIN(TestCubin)
#include "test_cubin.moc"
