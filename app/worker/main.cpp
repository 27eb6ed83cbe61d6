// sassx-worker: one process per GPU, speaking the line-delimited JSON protocol of docs/evaluator.md
// on stdin/stdout. All logic lives in core/eval (worker_server.cpp); this file only forwards. It is the
// one main that includes core/eval directly: the worker is the evaluator's server and links sassx_eval
// alone, so no GPU process carries the workspace (docs/architecture.md, "The wall above the workspace").
#include "core/eval/worker_server.h"

int main(int argc, char** argv)
{
    return sassx::eval::runWorker(argc, argv);
}
