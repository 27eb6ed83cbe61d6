// sassx-worker: one process per GPU, speaking the line-delimited JSON protocol of docs/evaluator.md
// on stdin/stdout. All logic lives in core/eval (worker_server.cpp); this file only forwards.
#include "core/eval/worker_server.h"

int main(int argc, char** argv)
{
    return sassx::eval::runWorker(argc, argv);
}
