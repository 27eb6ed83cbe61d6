#pragma once
// File ▸ Set Launch Spec… checks a spec when it is set, not on the next Measure: it must parse
// (docs/launch-spec.md), name the open kernel, and pass what the kernel's KPARAM_INFO says (the count and
// size of every parameter). A spec that fails is refused and the one in use stays.
#include <QString>

namespace sassx {
class KernelWorkspace;

// Why the spec at `path` cannot launch `kernel`, in one line; empty when it can. Without a kernel (none
// open yet) only the file itself is checked.
QString launchSpecProblem(const QString& path, const KernelWorkspace* kernel);

} // namespace sassx
