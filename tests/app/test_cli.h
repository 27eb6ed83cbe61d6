#pragma once
// sassx-cli end to end: every command on the bundled samples (exit code, JSON shape, files written)
// and bad input for each (one "sassx-cli: " line on stderr, a non-zero exit). Runs the built binary
// (SASSX_CLI) with QProcess; CLI usage in README.md, exit codes in app/cli/commands.h and
// app/cli/bench_command.h. Small kernels (rmsnorm, sgemm_leakyrelu) except where a Triton capture is
// the point; rows skip when their sample was not built (no nvcc).
//
// test_cli.cpp: the fixture (samples, temp files, the move the rewrite tests reuse);
// test_cli_inspect.cpp: info, annotate, legal, and --help of every command; test_cli_rewrite.cpp: move, diff,
// variants, triton-export/restore; test_cli_bench.cpp: bench --backend estimate; test_cli_bad_input.cpp:
// errors.
#include "cli_test_support.h"

#include <QHash>
#include <QObject>
#include <QTemporaryDir>

inline const QStringList kTritonSamples = {"attention_fwd", "gemm_leakyrelu"};

class TestCli : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_samples;
    QHash<QString, QString> m_vars;            // {name} placeholders in argument lists (badInput)
    mutable QHash<QStringList, CliRun> m_runs; // cachedRun: outputs of read-only commands
    QJsonArray m_rmsInstructions;
    QJsonArray m_rmsBlocks;
    QJsonArray m_rmsLegalAll; // legal --all --json moves of rmsnorm
    quint32 m_from = 0, m_to = 0;
    QString m_moved; // rmsnorm with the move m_from:m_to, written by ensureMoved()

    QString tmp(const QString& name) const { return m_tmp.filePath(name); }
    // runCli, once per argument list: for commands that only read (annotate, legal), since each
    // disassembles the kernel anew and nvdisasm dominates the suite's time.
    const CliRun& cachedRun(const QStringList& args) const;
    // <build>/samples/<stem>.sm_90.cubin when the build made it, else empty.
    QString sample(const QString& stem) const;
    // The kernel a sample's launch spec names (Triton kernels have their own symbol names).
    QString kernelOf(const QString& stem) const;
    // Replaces {name} by m_vars[name]; a name with no value goes to *missing.
    QStringList expand(const QStringList& args, QString* missing) const;
    // Empty when stderr is one "sassx-cli: " line mentioning `reason`, else what is wrong.
    static QString oneLineError(const CliRun& r, const QString& reason);
    // A synthetic Triton cache entry (the files Triton 3.x writes; core/rewrite/triton_cache.h).
    bool makeTritonEntry(const QString& dir, const QString& cubin, const QString& kernel) const;
    // `legal --all --json` moves of a cubin (cached); *error set when the command fails.
    QJsonArray legalMoves(const QString& cubin, QString* error) const;
    // Of `legal` moves, the one that goes furthest and changes the bytes; {-1, -1} when none does.
    static QPair<int, int> pickMove(const QJsonArray& moves, const QJsonArray& instructions);
    // Writes rmsnorm with the chosen legal move once; the output feeds move, diff and bench.
    bool ensureMoved(QString* error);
    void chooseRmsnormMoves();
    void writeSpecVariants(const QString& rmsnorm);

private slots:
    void initTestCase();
    void info_data();
    void info();
    void annotate_data();
    void annotate();
    void annotateToFile();
    void annotateRequiredLatency_data();
    void annotateRequiredLatency();
    void legal_data();
    void legal();
    void legalOnTriton_data();
    void legalOnTriton();
    void legalTextExplainsNoMoves_data();
    void legalTextExplainsNoMoves();
    void help_data();
    void help();
    void noCommand();
    void inlineValues_data();
    void inlineValues();
    void moveRoundTrip();
    void reschedule();
    void namedPattern();
    void yieldEditForms();
    void diff_data();
    void diff();
    void diffChecker();
    void variants();
    void benchEstimate_data();
    void benchEstimate();
    void tritonExportRestore();
    void badInput_data();
    void badInput();
};
