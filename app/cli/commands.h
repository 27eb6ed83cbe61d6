#pragma once
#include <string>
#include <vector>

// Each sassx-cli subcommand: returns the process exit code (0 ok, 1 bad input, 2 illegal edit).
using Args = std::vector<std::string>;
int runInfoCommand(const Args& args);
int runAnnotateCommand(const Args& args);
int runLegalCommand(const Args& args);
int runMoveCommand(const Args& args);
int runDiffCommand(const Args& args);
int runTritonExportCommand(const Args& args);
int runTritonRestoreCommand(const Args& args);
int runVariantsCommand(const Args& args);

// Small shared helpers.
struct ParsedArgs
{
    std::vector<std::string> positional;
    std::vector<std::pair<std::string, std::string>> options; // --name value ("" for flags)
    bool has(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback = {}) const;
    std::vector<std::string> values(const std::string& name) const;
};
// valueOptions: options that take a value.
ParsedArgs parseArgs(const Args& args, const std::vector<std::string>& valueOptions, std::string& error);
int fail(const std::string& message, int code = 1);
