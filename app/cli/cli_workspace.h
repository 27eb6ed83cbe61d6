#pragma once
// The CLI's side of the workspace: the options every kernel command shares (--arch, --kernel, the
// line-table escape hatch, the evaluator options) parsed in one place, so a command cannot forget one
// or give it another default.
#include "commands.h"

#include "core/session/workspace.h"

#include <memory>
#include <string>

struct CliKernel
{
    std::shared_ptr<const sassx::Workspace> workspace;
    std::shared_ptr<const sassx::KernelWorkspace> kernel;
};

// --arch A, --kernel K, --keep-stale-line-info.
const OptionSpec& workspaceOptionSpec();
// --backend, --gpus, --worker, --input-sets, --input-seed, --l2-flush, --metrics-backend.
const OptionSpec& evaluatorOptionSpec();

sassx::Result<sassx::WorkspaceOptions> workspaceOptions(const ParsedArgs& args);
sassx::Result<sassx::EvaluatorOptions> evaluatorOptions(const ParsedArgs& args,
                                                        const std::string& defaultBackend);

// Opens `path` and analyses --kernel (or the only kernel); `kernelOverride` wins over --kernel.
sassx::Result<CliKernel> openKernel(const std::string& path, const ParsedArgs& args,
                                    const std::string& kernelOverride = {});
// The kernel's notices (limits on what may move), each once on stderr as "sassx-cli: note: …".
void printNotices(const sassx::KernelWorkspace& kernel);
