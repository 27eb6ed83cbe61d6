// sassx-cli: the headless face of sassx. Each command lives in a *_command.cpp beside this file and
// registers itself with CLI11 (so every command answers --help); here the command line is parsed once
// and a parse error becomes the one "sassx-cli: " line every error is.
#include "bench_command.h"
#include "cli_options.h"
#include "commands.h"
#include "stalls_command.h"

#include <QCoreApplication>

#include <cstdio>
#include <iostream>
#include <memory>

namespace {

// `sassx-cli help [COMMAND]`: the list of commands, or one command's options, as --help prints them.
CliCommand addHelpCommand(CLI::App& root)
{
    auto topic = std::make_shared<std::string>();
    CLI::App* help = root.add_subcommand("help", "this list, or one command's options (help COMMAND)");
    help->add_option("COMMAND", *topic, "the command whose options to list");
    return {help, [&root, topic] {
                if (topic->empty()) {
                    // root.help() would show the chosen command's: this one.
                    std::cout << root.get_formatter()->make_help(&root, root.get_name(),
                                                                 CLI::AppFormatMode::Normal);
                    return 0;
                }
                const CLI::App* command = findCommand(root, *topic);
                if (!command) return fail("unknown command '" + *topic + "' (sassx-cli --help lists them)");
                std::cout << command->help(root.get_name());
                return 0;
            }};
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("sassx-cli");
    CLI::App root("sassx-cli: the headless face of sassx, the SASS schedule explorer", "sassx-cli");
    configureRoot(root);
    std::vector<CliCommand> commands;
    for (auto add : {addInfoCommand, addAnnotateCommand, addLegalCommand, addMoveCommand, addVariantsCommand,
                     addDiffCommand, addTritonExportCommand, addTritonRestoreCommand, addBenchCommand,
                     addStallsCommand, addSearchCommand, addTuneCommand, addHelpCommand})
        commands.push_back(add(root));
    readWholeNumbersAsDecimal(root);
    root.footer("sassx-cli COMMAND --help (or sassx-cli help COMMAND) lists a command's options.\n"
                "Exit: 0 ok, 1 bad input, 2 illegal edit (bench: 3, the candidate failed).");
    if (argc < 2) {
        std::fputs(root.help().c_str(), stderr);
        return 1;
    }
    // Before CLI11, which would say only that a command is required.
    const std::string first = argv[1];
    if (first != "-h" && first != "--help" && !findCommand(root, first))
        return fail("unknown command '" + first + "' (sassx-cli --help lists them)");
    try {
        root.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << root.help(); // the chosen command's, when there is one
        return 0;
    } catch (const CLI::ParseError& e) {
        return fail(parseErrorLine(root, e));
    }
    for (const CliCommand& c : commands)
        if (c.app->parsed()) return c.run();
    return fail("no command given (sassx-cli --help lists them)");
}
