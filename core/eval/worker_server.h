#pragma once
// The sassx-worker program (app/worker/main.cpp only forwards to this):
//   sassx-worker [--device N]                     serve the protocol on stdin/stdout
//   sassx-worker --oneshot SPEC CUBIN SEED        launch once on input set 0 (ncu's target)
// Exit codes: 0 after shutdown or EOF, 3 after a fault (the context is gone), 2 on bad usage.
namespace sassx::eval {

int runWorker(int argc, char** argv);

} // namespace sassx::eval
