// sassx-cli: the headless face of sassx. Subcommands live in *_command.cpp beside this file.
#include "commands.h"

#include <QCoreApplication>

#include <cstdio>
#include <map>

#include "bench_command.h"
#include "stalls_command.h"

namespace {

void usage()
{
    std::fputs(
        "usage: sassx-cli <command> [options]\n"
        "  info FILE [--json]                         cubins, kernels, attributes\n"
        "  annotate FILE [--kernel K] [--json] [-o OUT] annotated SASS listing\n"
        "  legal FILE [--kernel K] [--all] [--control yield|reuse|stall|all] [--reschedule] [--max-distance "
        "N] "
        "[--json]\n"
        "        legal moves and control edits (--reschedule: moves with control codes derived for the "
        "order)\n"
        "  move FILE --kernel K --move FROM:TO ... [--edit I:stall=N|yield=B|reuse=M ...] [--pattern "
        "ffma-interleave] [--repair]\n"
        "        [--reschedule [--minimal-stalls]] -o OUT\n"
        "  variants FILE [--kernel K] [--count N] [--seed S] [--rule sassx|sip|stalls|yield|control] -o "
        "OUT.jsonl\n"
        "  diff A B [--kernel K] [--format text|json|html]\n"
        "  triton-export ENTRY_DIR --cubin TUNED.cubin   triton-restore ENTRY_DIR\n"
        "  bench SPEC.json [--cubin FILE] [--backend gpu|estimate|auto] [--gpus LIST] [--metrics] "
        "[--stalls]\n"
        "        [--rounds N] [--processes K]   N interleaved rounds over K fresh worker processes (5)\n"
        "        [--metrics-backend auto|cupti|ncu] [--json]\n"
        "  stalls SPEC.json [--cubin FILE] [--period N|auto] [--top N] [--gpus LIST] [--json]\n"
        "        where warps wait, per instruction (CUPTI PC sampling; needs a GPU)\n"
        "  search SPEC.json [--algo climb|anneal|greedy|random|listsched|ppo] [--margin F] [--preset sip]\n"
        "        [--space mem|all|yield|all+control|rescheduled] [--budget-evals N | --budget-time 10m]\n"
        "        [--ppo-config FILE] [--policy FILE]   PPO settings, warm start from a saved policy.pt\n"
        "        [--backend auto|gpu|estimate] [--gpus LIST] [--seed S] [--resume] [--json] -o DIR\n"
        "        [--guide uniform|stalls] [--stalls FILE] [--sample-best]   stall-guided proposals\n"
        "        [--final-rounds N] [--final-processes K]   the best's final figure (100 rounds, 5 "
        "processes)\n",
        stderr);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("sassx-cli");
    if (argc < 2) {
        usage();
        return 1;
    }
    std::string cmd = argv[1];
    Args args(argv + 2, argv + argc);
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        usage();
        return 0;
    }
    static const std::map<std::string, int (*)(const Args&)> commands = {
        {"info", runInfoCommand},
        {"annotate", runAnnotateCommand},
        {"legal", runLegalCommand},
        {"move", runMoveCommand},
        {"variants", runVariantsCommand},
        {"diff", runDiffCommand},
        {"triton-export", runTritonExportCommand},
        {"triton-restore", runTritonRestoreCommand},
        {"bench", runBenchCommand},
        {"search", runSearchCommand},
        {"stalls", runStallsCommand},
    };
    if (auto it = commands.find(cmd); it != commands.end()) return it->second(args);
    std::fprintf(stderr, "sassx-cli: unknown command '%s' (sassx-cli --help lists them)\n", cmd.c_str());
    return 1;
}
