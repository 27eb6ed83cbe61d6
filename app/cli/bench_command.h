#pragma once
// sassx-cli bench SPEC.json [--cubin FILE] [--backend gpu|estimate|auto] [--gpus LIST] [--metrics]
// [--stalls] [--json] [--rounds N] [--screen N] [--processes K] [--input-sets K] [--seed S] [--l2-flush]
// [--worker PATH] (sassx-cli bench --help lists them all)
// Measures a cubin (default: the spec's own) against the spec's original: correctness, timing with
// a 95% interval and the noise floor, and optionally Nsight Compute metrics and stall samples. Every printed
// figure names its source. Exit: 0 correct, 1 bad input or setup failure, 3 candidate failed/incorrect.
#include "commands.h"

CliCommand addBenchCommand(CLI::App& root);
