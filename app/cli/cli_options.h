#pragma once
// CLI11 on sassx-cli's terms: the settings every command inherits, checks whose refusals read like the
// rest of the CLI's errors, and the one place where a CLI11 parse error becomes a "sassx-cli: " line.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

// Call before adding subcommands: they copy these settings when added. A single-value option given
// twice keeps its last value (a script appends overrides, as it always could), a flag refuses a value
// ("--json=false" would otherwise turn it off quietly), and --help gets room for the choices.
void configureRoot(CLI::App& root);

// Call once every command is added: whole-number options read "010" as ten, as the hand parser did
// (CLI11 reads integers in base 0, where a leading zero means octal). "0x10" stays hexadecimal.
void readWholeNumbersAsDecimal(CLI::App& root);

// The command named `name` (or nullptr): CLI11 2.1 has only a throwing lookup.
const CLI::App* findCommand(const CLI::App& root, const std::string& name);

// A value from `choices`: CLI11's IsMember checks it and --help lists them; the refusal reads
// "NAME is a, b or c, not 'x'".
CLI::Validator oneOf(const std::vector<std::string>& choices);
// For unsigned options, which CLI11 would read "-5" into as 2^64-5: "NAME takes a non-negative number,
// not '-5'".
const CLI::Validator& nonNegative();
// For a budget count, where 0 would be stored as "no limit" (core/search/search_budget.h): "NAME takes a
// number above 0 (leave the option out for no limit), not '0'".
const CLI::Validator& aboveZero();
// A repeatable option (--move A --move B): each occurrence takes exactly one value and every one is
// kept, in order (CLI11's vectors otherwise swallow the following words as further values).
CLI::Option* addRepeatable(CLI::App& command, const std::string& name, std::vector<std::string>& values,
                           const std::string& description);

// "sassx-cli search SPEC.json -o DIR [options]": the command, its positionals and required options.
std::string usageLine(const CLI::App& command);
// The line (without "sassx-cli: ") that a parse error of root's command line becomes.
std::string parseErrorLine(const CLI::App& root, const CLI::ParseError& error);
