#pragma once
// The sassx-cli commands. Each *_command.cpp registers one CLI11 subcommand with its options bound to
// a struct of its own, and hands main the body that runs once the whole command line has parsed.
// Exit codes: 0 ok, 1 bad input, 2 illegal edit (bench: 3 when the candidate fails; bench_command.h).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct CliCommand
{
    CLI::App* app = nullptr; // the subcommand: main runs `run` when it is the one given
    std::function<int()> run;
};

CliCommand addInfoCommand(CLI::App& root);
CliCommand addAnnotateCommand(CLI::App& root);
CliCommand addLegalCommand(CLI::App& root);
CliCommand addMoveCommand(CLI::App& root);
CliCommand addVariantsCommand(CLI::App& root);
CliCommand addDiffCommand(CLI::App& root);
CliCommand addTritonExportCommand(CLI::App& root);
CliCommand addTritonRestoreCommand(CLI::App& root);
CliCommand addSearchCommand(CLI::App& root);
CliCommand addTuneCommand(CLI::App& root);

// "sassx-cli: MESSAGE" on stderr, only its first line (details after it are for the GUI); returns `code`.
int fail(const std::string& message, int code = 1);
// The whole file as bytes; false when it cannot be read.
bool readFileBytes(const std::string& path, std::vector<uint8_t>& out);
