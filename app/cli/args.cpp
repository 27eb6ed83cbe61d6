#include "commands.h"

#include <fstream>
#include <iterator>

#include <algorithm>
#include <cstdio>

bool ParsedArgs::has(const std::string& name) const
{
    return std::any_of(options.begin(), options.end(), [&](const auto& o) { return o.first == name; });
}

std::string ParsedArgs::value(const std::string& name, const std::string& fallback) const
{
    for (auto it = options.rbegin(); it != options.rend(); ++it)
        if (it->first == name) return it->second;
    return fallback;
}

std::vector<std::string> ParsedArgs::values(const std::string& name) const
{
    std::vector<std::string> out;
    for (const auto& o : options)
        if (o.first == name) out.push_back(o.second);
    return out;
}

OptionSpec& OptionSpec::add(const OptionSpec& other)
{
    values.insert(values.end(), other.values.begin(), other.values.end());
    flags.insert(flags.end(), other.flags.begin(), other.flags.end());
    return *this;
}

ParsedArgs parseArgs(const Args& args, const OptionSpec& spec, std::string& error)
{
    auto known = [](const std::vector<std::string>& list, const std::string& name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    ParsedArgs p;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() > 1 && a[0] == '-' && a != "-") {
            std::string name = a;
            std::string value;
            const auto eq = a.find('=');
            const bool inlineValue = eq != std::string::npos && a.starts_with("--");
            if (inlineValue) name = a.substr(0, eq);
            if (known(spec.values, name)) {
                if (inlineValue) {
                    value = a.substr(eq + 1);
                } else if (i + 1 >= args.size()) {
                    error = "option " + name + " needs a value";
                    return p;
                } else {
                    value = args[++i];
                }
            } else if (known(spec.flags, name)) {
                if (inlineValue) {
                    error = "option " + name + " takes no value";
                    return p;
                }
            } else {
                error = "unknown option " + name;
                return p;
            }
            p.options.emplace_back(name, value);
        } else {
            p.positional.push_back(a);
        }
    }
    return p;
}

int fail(const std::string& message, int code)
{
    // One line: details that follow a message's first line (a decoder's own lines) are for the GUI.
    const std::string line = message.substr(0, message.find('\n'));
    std::fprintf(stderr, "sassx-cli: %s\n", line.c_str());
    return code;
}

bool readFileBytes(const std::string& path, std::vector<uint8_t>& out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), {});
    return true;
}
