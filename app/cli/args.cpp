#include "commands.h"

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

ParsedArgs parseArgs(const Args& args, const std::vector<std::string>& valueOptions, std::string& error)
{
    ParsedArgs p;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() > 1 && a[0] == '-' && a != "-") {
            std::string name = a;
            std::string value;
            if (auto eq = a.find('='); eq != std::string::npos && a.starts_with("--")) {
                name = a.substr(0, eq);
                value = a.substr(eq + 1);
            } else if (std::find(valueOptions.begin(), valueOptions.end(), name) != valueOptions.end()) {
                if (i + 1 >= args.size()) {
                    error = "option " + name + " needs a value";
                    return p;
                }
                value = args[++i];
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
    std::fprintf(stderr, "sassx-cli: %s\n", message.c_str());
    return code;
}
