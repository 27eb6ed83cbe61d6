#pragma once
#include <cstdint>
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
int runSearchCommand(const Args& args);

// Small shared helpers.
struct ParsedArgs
{
    std::vector<std::string> positional;
    std::vector<std::pair<std::string, std::string>> options; // --name value ("" for flags)
    bool has(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback = {}) const;
    std::vector<std::string> values(const std::string& name) const;
};
// The options a command understands: `values` take a value ("--kernel K" or "--kernel=K"), `flags` do
// not. Anything else starting with '-' is an error naming it, so a typo never passes silently.
struct OptionSpec
{
    std::vector<std::string> values;
    std::vector<std::string> flags;
    OptionSpec& add(const OptionSpec& other); // merge (e.g. a command's own plus the workspace options)
};
ParsedArgs parseArgs(const Args& args, const OptionSpec& spec, std::string& error);
int fail(const std::string& message, int code = 1);
// The whole file as bytes; false when it cannot be read.
bool readFileBytes(const std::string& path, std::vector<uint8_t>& out);
