#pragma once
// A search fixture on a sample kernel: its workspace, the estimate evaluator (deterministic), and the
// engine's evaluator over them, as SearchRun builds them.
#include "core/eval/launch_spec.h"
#include "core/search/search_engine.h"
#include "core/session/search_evaluator.h"
#include "core/session/workspace.h"

#include <QFileInfo>
#include <QString>
#include <QStringList>

#include <memory>

struct SearchFixture
{
    std::shared_ptr<const sassx::KernelWorkspace> kernel;
    std::unique_ptr<sassx::KernelEvaluator> kernelEvaluator;
    std::unique_ptr<sassx::SearchEvaluator> evaluator;
    std::string error;

    // `name`: a sample with build/samples/<name>.launch.json and <name>.sm_90.cubin.
    static std::unique_ptr<SearchFixture> open(const QString& name)
    {
        auto f = std::make_unique<SearchFixture>();
        const std::string spec = QStringLiteral(SASSX_SAMPLES_DIR "/%1.launch.json").arg(name).toStdString();
        auto ls = sassx::eval::loadLaunchSpec(spec);
        if (!ls) return f->fail(ls.message());
        auto ws = sassx::Workspace::open(ls->cubinPath());
        if (!ws) return f->fail(ws.message());
        auto k = (*ws)->kernel(ls->kernel);
        if (!k) return f->fail(k.message());
        f->kernel = *k;
        sassx::EvaluatorOptions eo;
        eo.backend = sassx::eval::Backend::Estimate;
        auto choice = sassx::makeEvaluator(eo);
        if (!choice) return f->fail(choice.message());
        f->kernelEvaluator = std::make_unique<sassx::KernelEvaluator>(f->kernel, *choice, *ls);
        if (auto s = f->kernelEvaluator->prepare(); !s) return f->fail(s.message());
        f->evaluator = std::make_unique<sassx::SearchEvaluator>(*f->kernelEvaluator);
        return f;
    }
    static bool available(const QString& name)
    {
        return QFileInfo::exists(QStringLiteral(SASSX_SAMPLES_DIR "/%1.launch.json").arg(name)) &&
               QFileInfo::exists(QStringLiteral(SASSX_SAMPLES_DIR "/%1.sm_90.cubin").arg(name));
    }

private:
    std::unique_ptr<SearchFixture> fail(std::string message)
    {
        auto f = std::make_unique<SearchFixture>();
        f->error = std::move(message);
        return f;
    }
};

#define REQUIRE_SAMPLE(name)                                                                                 \
    if (!SearchFixture::available(name))                                                                     \
    QSKIP(qPrintable(QStringLiteral("sample %1 missing (no nvcc to build it?)").arg(name)))

// One search on the fixture, run to its end (its budget, or `control`'s stop).
inline sassx::search::SearchState runOnce(SearchFixture& f, const sassx::search::SearchConfig& c,
                                          const sassx::search::SearchControl& control = {},
                                          const sassx::search::SearchCallbacks& callbacks = {})
{
    sassx::search::SearchEngine engine(f.kernel->checker(), *f.evaluator);
    const sassx::Status s = engine.start(c);
    if (!s) qFatal("start: %s", s.message().c_str());
    return engine.run(callbacks, control);
}

// The whole trajectory: every evaluation's kind, base, edits, figure and outcome (resume tests compare
// two of them line by line).
inline QStringList trajectory(const sassx::search::SearchState& s)
{
    QStringList out;
    for (const auto& e : s.history) {
        QString row = QString::fromStdString(e.kind) + QStringLiteral(" b%1").arg(e.base);
        for (const sassx::Edit& ed : e.edits)
            row += QStringLiteral(" ") + QString::fromStdString(ed.describe());
        row += QStringLiteral(" %1 %2")
                   .arg(e.figures.speedup, 0, 'f', 9)
                   .arg(QString::fromStdString(sassx::search::outcomeName(e.outcome)));
        out << row;
    }
    return out;
}
