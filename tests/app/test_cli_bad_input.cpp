// Bad input for every command: exactly one line on stderr, starting "sassx-cli: " and saying why (no
// usage dump, no stack, no Qt warning; only an illegal move may add "  also: " lines naming further
// hazards), nothing on stdout, and a non-zero exit (1 bad input, 2 illegal edit; app/cli/commands.h). Each
// row is otherwise a valid command line, so that only the fault named in the row can be what the command
// refuses.
#include "test_cli.h"

#include <QtTest>

namespace {

// A row: "{name}" placeholders are the fixture's files (test_cli.cpp); `reason` is a phrase the error
// line must contain.
void row(const QString& name, const QString& args, int code, const QString& reason)
{
    QTest::newRow(qPrintable(name)) << args.split(' ', Qt::SkipEmptyParts) << code << reason;
}

} // namespace

void TestCli::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("reason");

    // Each command with FILE standing for the input cubin, otherwise valid.
    const QList<QPair<QString, QString>> commands = {
        {"info", "info FILE"},
        {"annotate", "annotate FILE"},
        {"legal", "legal FILE --all"},
        {"move", "move FILE --kernel rmsnorm --move {legal} -o {tmp}/bad.cubin"},
        {"variants", "variants FILE --count 2 -o {tmp}/bad.jsonl"},
        {"diff A", "diff FILE {rmsnorm}"},
        {"diff B", "diff {rmsnorm} FILE"},
        {"triton-export", "triton-export {entry_scratch} --cubin FILE"},
    };
    const QList<QPair<QString, QString>> badFiles = {{"missing file", "{missing}"},
                                                     {"truncated cubin", "{truncated}"},
                                                     {"not an ELF file", "{notelf}"},
                                                     {"a FIFO", "{fifo}"}};
    for (const auto& [command, line] : commands)
        for (const auto& [what, file] : badFiles) {
            QString args = line;
            // The error names the file; triton-export says "the tuned cubin" (its --cubin) once it exists.
            const QString reason = command == "triton-export" && file != "{missing}" ? "tuned cubin" : file;
            row(command + ": " + what, args.replace("FILE", file), 1, reason);
        }

    // --kernel nope where a command picks a kernel.
    row("annotate: unknown kernel", "annotate {rmsnorm} --kernel nope", 1, "no kernel named 'nope'");
    row("legal: unknown kernel", "legal {rmsnorm} --kernel nope", 1, "no kernel named 'nope'");
    row("move: unknown kernel", "move {rmsnorm} --kernel nope --move {legal} -o {tmp}/bad.cubin", 1,
        "no kernel named 'nope'");
    row("variants: unknown kernel", "variants {rmsnorm} --kernel nope -o {tmp}/bad.jsonl", 1,
        "no kernel named 'nope'");
    row("diff: unknown kernel", "diff {rmsnorm} {rmsnorm} --kernel nope", 1, "no kernel named 'nope'");
    row("triton-export: unknown kernel", "triton-export {entry_scratch} --cubin {rmsnorm} --kernel nope", 1,
        "nope");

    // An unknown option on an otherwise valid command line is refused, never ignored.
    const QList<QPair<QString, QString>> valid = {
        {"info", "info {rmsnorm}"},
        {"annotate", "annotate {rmsnorm}"},
        {"legal", "legal {rmsnorm}"},
        {"move", "move {rmsnorm} --kernel rmsnorm --move {legal} -o {tmp}/bogus.cubin"},
        {"variants", "variants {rmsnorm} --count 1 -o {tmp}/bogus.jsonl"},
        {"diff", "diff {rmsnorm} {rmsnorm}"},
        {"triton-export", "triton-export {entry_scratch} --cubin {rmsnorm}"},
        {"triton-restore", "triton-restore {entry_nobackup}"},
        {"bench", "bench {spec} --backend estimate"},
    };
    for (const auto& [command, line] : valid)
        row(command + ": unknown option", line + " --bogus", 1, "unknown option --bogus");

    // Missing operands and required options.
    row("info: no file", "info", 1, "usage");
    row("annotate: no file", "annotate", 1, "usage");
    row("legal: no file", "legal", 1, "usage");
    row("move: no -o", "move {rmsnorm} --kernel rmsnorm --move {legal}", 1, "-o");
    row("variants: no -o", "variants {rmsnorm} --count 2", 1, "-o");
    row("diff: one file", "diff {rmsnorm}", 1, "usage");
    row("triton-export: no --cubin", "triton-export {entry_scratch}", 1, "--cubin");
    row("triton-restore: no entry", "triton-restore", 1, "usage");
    row("bench: no spec", "bench --backend estimate", 1, "SPEC");
    row("annotate: -o without a value", "annotate {rmsnorm} -o", 1, "-o needs a value");
    row("annotate: unwritable -o", "annotate {rmsnorm} -o {missing}/out.txt", 1, "cannot write");
    row("move: --move without a value", "move {rmsnorm} --kernel rmsnorm -o {tmp}/bad.cubin --move", 1,
        "--move needs a value");
    row("stalls: no spec", "stalls --backend estimate", 1, "usage");
    row("info: two files", "info {rmsnorm} {rmsnorm}", 1, "unexpected argument");
    row("diff: three files", "diff {rmsnorm} {rmsnorm} {rmsnorm}", 1, "usage");
    row("info: a flag given a value", "info {rmsnorm} --json=false", 1, "--json takes no value");

    // Malformed values.
    row("move: bad --move syntax", "move {rmsnorm} --kernel rmsnorm --move 3-4 -o {tmp}/bad.cubin", 1, "3-4");
    row("move: bad --edit field", "move {rmsnorm} --kernel rmsnorm --edit 3:color=1 -o {tmp}/bad.cubin", 1,
        "color");
    row("variants: --count not a number", "variants {rmsnorm} --count five -o {tmp}/bad.jsonl", 1, "--count");
    row("variants: unknown --rule", "variants {rmsnorm} --rule random -o {tmp}/bad.jsonl", 1, "--rule");
    row("variants: --count not a whole number", "variants {rmsnorm} --count 2.5 -o {tmp}/bad.jsonl", 1,
        "2.5");
    row("legal: unknown --control", "legal {rmsnorm} --control speed", 1, "yield, reuse, stall or all");
    row("legal: --max-distance 0", "legal {rmsnorm} --reschedule --max-distance 0", 1, "--max-distance");
    row("diff: unknown --format", "diff {rmsnorm} {rmsnorm} --format pdf", 1, "--format");
    row("diff: two kernels", "diff {rmsnorm} {sgemm_leakyrelu}", 1, "rmsnorm");
    row("diff: B is invalid JSON", "diff {rmsnorm} {badjson}", 1, "not valid JSON");

    // Illegal edits exit 2 with the checker's reason.
    row("move: across a wall", "move {rmsnorm} --kernel rmsnorm --move {wall} -o {tmp}/bad.cubin", 2,
        "illegal");
    row("move: out of its block", "move {rmsnorm} --kernel rmsnorm --move {crossblock} -o {tmp}/bad.cubin", 2,
        "basic block");

    // Triton cache entries.
    row("triton-export: no entry", "triton-export {missing} --cubin {rmsnorm}", 1, "{missing}");
    row("triton-export: another kernel's cubin", "triton-export {entry_scratch} --cubin {sgemm_leakyrelu}", 1,
        "rmsnorm");
    row("triton-restore: no entry", "triton-restore {missing}", 1, "{missing}");
    row("triton-restore: no backup", "triton-restore {entry_nobackup}", 1, "no backup");

    // Launch specs.
    row("bench: missing spec", "bench {missing} --backend estimate", 1, "{missing}");
    row("bench: spec is invalid JSON", "bench {badjson} --backend estimate", 1, "not valid JSON");
    row("bench: spec lacks a parameter", "bench {spec_noparam} --backend estimate", 1, "parameters");
    row("bench: spec names a missing cubin", "bench {spec_nocubin} --backend estimate", 1, "{missing}");
    row("bench: spec names an unknown kernel", "bench {spec_nokernel} --backend estimate", 1, "nope");
    row("bench: truncated candidate", "bench {spec} --backend estimate --cubin {truncated}", 1, "");
    row("bench: unknown backend", "bench {spec} --backend abacus", 1, "backend");
    row("bench: --input-sets not a number", "bench {spec} --input-sets many", 1, "many");
    row("bench: negative --input-seed", "bench {spec} --backend estimate --input-seed -3", 1, "non-negative");
    row("bench: --processes out of range", "bench {spec} --backend estimate --processes 0", 1, "1 to 64");
    row("bench: unknown --metrics-backend", "bench {spec} --backend estimate --metrics-backend perf", 1,
        "perf");
    row("stalls: --period out of range", "stalls {spec} --period 3", 1, "--period");

    // Budgets: a zero is refused (the search stores 0 as "no limit"; core/search/search_budget.h).
    row("search: a zero --budget-time", "search {spec} --backend estimate --budget-time 0s -o {tmp}/zero", 1,
        "--budget-time takes a duration above zero such as 90s, 10m or 1h, not '0s'");
    row("search: a zero --budget-evals", "search {spec} --backend estimate --budget-evals 0 -o {tmp}/zero", 1,
        "--budget-evals takes a number above 0");
    row("tune: a zero --budget-evals", "tune {missing} --budget-evals 0", 1,
        "--budget-evals takes a number above 0");
    row("tune: an unknown --launcher", "tune {missing} --budget-evals 5 --launcher pbs", 1, "pbs");

    row("unknown command", "frobnicate {missing}", 1, "unknown command 'frobnicate'");
    row("help on an unknown command", "help frobnicate", 1, "unknown command 'frobnicate'");
}

void TestCli::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, reason);
    QString missing;
    args = expand(args, &missing);
    reason = expand({reason}, &missing).value(0);
    if (!missing.isEmpty()) QSKIP(qPrintable("needs {" + missing + "}: a sample was not built"));
    const CliRun r = runCli(args);
    QVERIFY2(!r.crashed && !r.timedOut, qPrintable(r.describe()));
    QVERIFY2(r.exitCode == code, qPrintable(QStringLiteral("expected exit %1\n").arg(code) + r.describe()));
    const QString problem = oneLineError(r, reason);
    QVERIFY2(problem.isEmpty(), qPrintable(problem + "\n" + r.describe()));
    QVERIFY2(r.out.isEmpty(), qPrintable("an error with output on stdout\n" + r.describe()));
}
