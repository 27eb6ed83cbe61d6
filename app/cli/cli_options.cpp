#include "cli_options.h"

#include <cctype>
#include <cstdlib>

void configureRoot(CLI::App& root)
{
    root.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->disable_flag_override();
    root.get_formatter()->column_width(36);
    root.require_subcommand(1); // one command, and the words after it are that command's only
}

void readWholeNumbersAsDecimal(CLI::App& root)
{
    const auto stripZeros = [](std::string& v) {
        const size_t sign = !v.empty() && (v[0] == '+' || v[0] == '-') ? 1 : 0;
        size_t first = sign;
        while (first + 1 < v.size() && v[first] == '0' &&
               std::isdigit(static_cast<unsigned char>(v[first + 1])))
            ++first;
        v.erase(sign, first - sign);
        return std::string();
    };
    for (CLI::App* command : root.get_subcommands({}))
        for (CLI::Option* option : command->get_options({})) {
            const std::string type = option->get_type_name();
            if (type.starts_with("INT") || type.starts_with("UINT"))
                option->transform(CLI::Validator(stripZeros, "", "decimal"));
        }
}

const CLI::App* findCommand(const CLI::App& root, const std::string& name)
{
    const auto found = root.get_subcommands([&](const CLI::App* c) { return c->check_name(name); });
    return found.empty() ? nullptr : found.front();
}

CLI::Validator oneOf(const std::vector<std::string>& choices)
{
    std::string list;
    for (size_t i = 0; i < choices.size(); ++i)
        list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    const CLI::Validator member = CLI::IsMember(choices); // as a Validator: IsMember does not copy
    return CLI::Validator(
        [member, list](std::string& value) {
            return member(value).empty() ? std::string() : "is " + list + ", not '" + value + "'";
        },
        member.get_description());
}

const CLI::Validator& nonNegative()
{
    static const CLI::Validator check(
        [](std::string& value) {
            const auto first = value.find_first_not_of(" \t");
            if (first == std::string::npos || value[first] != '-') return std::string();
            return "takes a non-negative number, not '" + value + "'";
        },
        ""); // no description: the type (UINT) already says it
    return check;
}

const CLI::Validator& aboveZero()
{
    static const CLI::Validator check(
        [](std::string& value) {
            char* end = nullptr;
            const double v = std::strtod(value.c_str(), &end);
            if (end == value.c_str() || v > 0) return std::string(); // not a number: the type check says so
            return "takes a number above 0 (leave the option out for no limit), not '" + value + "'";
        },
        "");
    return check;
}

CLI::Option* addRepeatable(CLI::App& command, const std::string& name, std::vector<std::string>& values,
                           const std::string& description)
{
    return command.add_option(name, values, description)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::string usageLine(const CLI::App& command)
{
    const CLI::App* parent = command.get_parent();
    std::string line = parent ? parent->get_name() + " " + command.get_name() : command.get_name();
    std::string required;
    for (const CLI::Option* o : command.get_options()) {
        if (!o->nonpositional())
            line += o->get_required() ? " " + o->get_name() : " [" + o->get_name() + "]";
        else if (o->get_required())
            required += " " + o->get_name() + " " + o->get_type_name();
    }
    return line + required + " [options]";
}

namespace {

// The option a CLI11 message names: by its name, except that a flag given a value is named bare.
const CLI::Option* findOption(const CLI::App& command, const std::string& name)
{
    for (const std::string& n : {name, "--" + name, "-" + name})
        if (const CLI::Option* o = command.get_option_no_throw(n)) return o;
    return nullptr;
}

// ExtrasError: CLI11 lists what nothing took; the first one is what the user gets told about.
std::string extraLine(const CLI::App& root, const CLI::App& command, const std::string& what)
{
    const auto left = root.remaining(true);
    const std::string first = left.empty() ? what : left.front();
    if (first.size() > 1 && first[0] == '-') return "unknown option " + first.substr(0, first.find('='));
    return command.get_name() + ": unexpected argument '" + first + "' (usage: " + usageLine(command) +
           "; --help lists them)";
}

// ConversionError "Could not convert: NAME = VALUE": only numbers fail to convert.
std::string conversionLine(const CLI::App& command, const std::string& what)
{
    const std::string head = "Could not convert: ";
    const auto eq = what.find(" = ");
    if (!what.starts_with(head) || eq == std::string::npos) return what;
    const std::string name = what.substr(head.size(), eq - head.size());
    const CLI::Option* o = findOption(command, name);
    const std::string type = o ? o->get_type_name() : std::string();
    const std::string kind = type.starts_with("INT") || type.starts_with("UINT") ? "a whole number"
                             : type.starts_with("FLOAT")                         ? "a number"
                                                                                 : "another value";
    return name + " takes " + kind + ", not '" + what.substr(eq + 3) + "'";
}

} // namespace

std::string parseErrorLine(const CLI::App& root, const CLI::ParseError& error)
{
    // By type, from CLI11 2.1.2's messages (CLI/Error.hpp), each of which starts with the option's name.
    const auto chosen = root.get_subcommands();
    const CLI::App& command = chosen.empty() ? root : *chosen.front();
    const std::string what = error.what();
    // CLI11 checks what is required before what is left over; a leftover (a misspelt "--out DIR") is
    // more likely the cause, and it was what the CLI named first before CLI11.
    const bool leftover = !root.remaining(true).empty();
    if (dynamic_cast<const CLI::ExtrasError*>(&error) ||
        (leftover && dynamic_cast<const CLI::RequiredError*>(&error)))
        return extraLine(root, command, what);
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) {
        // "-o: 1 required TEXT missing", or a flag given a value: "json was given a disallowed flag override"
        const std::string name = what.substr(0, what.find_first_of(": "));
        const CLI::Option* o = findOption(command, name);
        const bool flag = o && o->get_expected_max() == 0;
        return "option " + (o ? o->get_name() : name) + (flag ? " takes no value" : " needs a value");
    }
    if (dynamic_cast<const CLI::RequiredError*>(&error)) // "SPEC.json is required"
        return (&command == &root ? "" : command.get_name() + ": ") + what +
               " (usage: " + usageLine(command) + "; --help lists them)";
    if (dynamic_cast<const CLI::ConversionError*>(&error)) return conversionLine(command, what);
    if (dynamic_cast<const CLI::ValidationError*>(&error)) {
        // "NAME: BODY" with BODY from oneOf() or nonNegative(): "NAME is a or b, not 'c'"
        const auto colon = what.find(": ");
        if (colon != std::string::npos) return what.substr(0, colon) + " " + what.substr(colon + 2);
    }
    return what;
}
