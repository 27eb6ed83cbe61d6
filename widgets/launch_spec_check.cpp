#include "widgets/launch_spec_check.h"

#include "core/session/kernel_evaluator.h" // eval::loadLaunchSpec and validateAgainstCubin, re-exported
#include "core/session/workspace.h"

#include <QFileInfo>

namespace sassx {

namespace {

// A parser's message can run over several lines (nlohmann's names the byte); the dialog shows one.
QString firstLine(const std::string& message)
{
    const QString text = QString::fromStdString(message).trimmed();
    const qsizetype nl = text.indexOf(QLatin1Char('\n'));
    return nl < 0 ? text : text.left(nl);
}

} // namespace

QString launchSpecProblem(const QString& path, const KernelWorkspace* kernel)
{
    const QString file = QFileInfo(path).fileName();
    auto spec = eval::loadLaunchSpec(path.toStdString());
    if (!spec) return QObject::tr("%1: %2").arg(file, firstLine(spec.message()));
    if (!kernel) return {};
    if (spec->kernel != kernel->name())
        return QObject::tr("%1 launches %2, not the open kernel %3")
            .arg(file, QString::fromStdString(spec->kernel), QString::fromStdString(kernel->name()));
    if (Status s = eval::validateAgainstCubin(*spec, kernel->cubin()); !s)
        return QObject::tr("%1: %2").arg(file, firstLine(s.message()));
    return {};
}

} // namespace sassx
