#pragma once
// sassx-cli stalls SPEC.json [--cubin FILE] [--period N|auto] [--top N] [--json] [--gpus LIST] [--worker
// PATH] Samples where the warps of one launch wait (CUPTI PC sampling, in the GPU worker's sampling child):
// per instruction, per block and for the kernel, by stall reason. With --cubin (a tuned variant of the
// spec's kernel) the samples are mapped back to the original instructions, so one instruction keeps
// its figures when it moves. Needs a GPU: the estimate backend has no samples and says so.
// Exit: 0 ok, 1 bad input or no samples.
#include "commands.h"

CliCommand addStallsCommand(CLI::App& root);
