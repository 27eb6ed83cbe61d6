#include "core/cluster/slurm_states.h"

#include <array>
#include <charconv>
#include <sstream>
#include <string_view>
#include <vector>

namespace sassx::cluster {

namespace {

std::optional<int> toInt(std::string_view text)
{
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::vector<std::string_view> splitOn(std::string_view text, char sep)
{
    std::vector<std::string_view> parts;
    while (true) {
        const size_t at = text.find(sep);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + 1);
    }
}

// "4", "1-3", "0-7%2", "1,3-5" (scontrol's ArrayTaskId, or the inside of sacct's "[...]") → indices.
std::vector<int> parseIndexList(std::string_view text)
{
    if (const size_t pct = text.find('%'); pct != std::string_view::npos) text = text.substr(0, pct);
    std::vector<int> out;
    for (std::string_view part : splitOn(text, ',')) {
        const size_t dash = part.find('-');
        const auto lo = toInt(part.substr(0, dash));
        const auto hi = dash == std::string_view::npos ? lo : toInt(part.substr(dash + 1));
        if (!lo || !hi || *hi < *lo || *hi - *lo > 1'000'000) return {};
        for (int i = *lo; i <= *hi; ++i)
            out.push_back(i);
    }
    return out;
}

// "123_4" → {4}, "123_[1-3%2]" → {1,2,3}, another job or a malformed id → {}.
std::vector<int> indicesOfArrayId(std::string_view id, const std::string& jobId)
{
    if (id.size() <= jobId.size() + 1 || id.substr(0, jobId.size()) != jobId || id[jobId.size()] != '_')
        return {};
    std::string_view rest = id.substr(jobId.size() + 1);
    if (rest.front() == '[') {
        if (rest.back() != ']') return {};
        return parseIndexList(rest.substr(1, rest.size() - 2));
    }
    const auto one = toInt(rest);
    return one ? std::vector<int>{*one} : std::vector<int>{};
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        if (!line.empty()) out.push_back(line);
    }
    return out;
}

// Slurm prints "CANCELLED by 0" in some places; the state is the first word.
std::string firstWord(std::string_view text)
{
    const size_t start = text.find_first_not_of(' ');
    if (start == std::string_view::npos) return {};
    text.remove_prefix(start);
    return std::string(text.substr(0, text.find(' ')));
}

} // namespace

bool isTerminalState(const std::string& state)
{
    static constexpr std::array<std::string_view, 10> kTerminal = {
        "BOOT_FAIL", "CANCELLED",     "COMPLETED", "DEADLINE", "FAILED",
        "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT",  "REVOKED"};
    for (auto t : kTerminal)
        if (state == t) return true;
    return false;
}

std::optional<int> parseExitCode(const std::string& text)
{
    const size_t colon = text.find(':');
    if (colon == std::string::npos) return std::nullopt;
    const auto code = toInt(std::string_view(text).substr(0, colon));
    const auto signal = toInt(std::string_view(text).substr(colon + 1));
    if (!code || !signal || *code < 0 || *signal < 0) return std::nullopt;
    return *signal != 0 ? 128 + *signal : *code;
}

std::map<int, std::string> parseSqueueStates(const std::string& out, const std::string& jobId)
{
    std::map<int, std::string> states;
    for (const auto& line : lines(out)) {
        const size_t space = line.find(' ');
        if (space == std::string::npos) continue;
        const auto indices = indicesOfArrayId(std::string_view(line).substr(0, space), jobId);
        if (indices.size() != 1) continue; // squeue -r lists every task on its own line
        states[indices.front()] = firstWord(std::string_view(line).substr(space + 1));
    }
    return states;
}

std::map<int, TaskReport> parseScontrolRecords(const std::string& out, const std::string& jobId)
{
    std::map<int, TaskReport> reports;
    for (const auto& line : lines(out)) {
        std::map<std::string, std::string, std::less<>> fields;
        for (std::string_view word : splitOn(line, ' ')) {
            const size_t eq = word.find('=');
            if (eq != std::string_view::npos)
                fields.emplace(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
        }
        if (fields["ArrayJobId"] != jobId) continue;
        TaskReport report;
        report.state = fields["JobState"];
        report.exitCode = parseExitCode(fields["ExitCode"]);
        if (fields["Reason"] != "None") report.reason = fields["Reason"];
        const std::string& node = fields["BatchHost"].empty() ? fields["NodeList"] : fields["BatchHost"];
        report.ranOnNode = !node.empty() && node != "(null)";
        // A record of tasks that never left the queue still says ExitCode=0:0: not an exit status.
        if (!report.ranOnNode) report.exitCode.reset();
        for (int index : parseIndexList(fields["ArrayTaskId"]))
            reports[index] = report;
    }
    return reports;
}

std::map<int, TaskReport> parseSacctLines(const std::string& out, const std::string& jobId)
{
    std::map<int, TaskReport> reports;
    for (const auto& line : lines(out)) {
        const auto parts = splitOn(line, '|');
        if (parts.size() < 3) continue;
        TaskReport report;
        report.state = firstWord(parts[1]);
        // "123_[1-3]" is the record of tasks that never started: its ExitCode is not theirs.
        if (parts[0].find('[') == std::string_view::npos)
            report.exitCode = parseExitCode(std::string(parts[2]));
        for (int index : indicesOfArrayId(parts[0], jobId))
            reports[index] = report;
    }
    return reports;
}

} // namespace sassx::cluster
