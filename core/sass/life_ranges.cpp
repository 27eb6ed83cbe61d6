#include "core/sass/life_ranges.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace sassx {
namespace {

struct Column
{
    RegFile file;
    int index; // -1 for the '#' count column
    size_t pos;
};

bool fileFromName(const std::string& name, RegFile& f)
{
    if (name == "GPR")
        f = RegFile::R;
    else if (name == "PRED")
        f = RegFile::P;
    else if (name == "UGPR")
        f = RegFile::UR;
    else if (name == "UPRED")
        f = RegFile::UP;
    else
        return false;
    return true;
}

std::string stripSpaces(const std::string& s)
{
    std::string o;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) o += c;
    return o;
}

} // namespace

Result<LifeRanges> parseLifeRanges(const std::string& text)
{
    LifeRanges out;
    std::istringstream in(text);
    std::string line, kernel, previous;
    std::vector<Column> columns;
    std::vector<std::string> segmentNames;
    while (std::getline(in, line)) {
        if (auto p = line.find("//--------------------- .text."); p != std::string::npos) {
            std::string rest = line.substr(p + 30);
            kernel = rest.substr(0, rest.find_first_of(" \t-"));
            columns.clear();
            continue;
        }
        auto c = line.find("// |");
        if (c == std::string::npos) {
            previous.clear();
            continue;
        }
        size_t base = c + 3; // position of the first '|'
        std::string table = line.substr(base);
        // Split into segments by '|', remembering absolute positions.
        std::vector<std::pair<size_t, std::string>> segs;
        size_t start = 0;
        for (size_t i = 1; i <= table.size(); ++i) {
            if (i == table.size() || table[i] == '|') {
                segs.emplace_back(start + 1, table.substr(start + 1, i - start - 1));
                start = i;
            }
        }
        if (!segs.empty() && segs.back().second.empty()) segs.pop_back();
        bool isHeaderNumbers = !segs.empty() && stripSpaces(segs[0].second).starts_with("#");
        if (isHeaderNumbers) {
            // Names come from the previous table line.
            columns.clear();
            segmentNames.clear();
            {
                std::string prevTable = previous.size() > base ? previous.substr(base) : "";
                size_t s = 0;
                for (size_t i = 1; i <= prevTable.size(); ++i)
                    if (i == prevTable.size() || prevTable[i] == '|') {
                        segmentNames.push_back(stripSpaces(prevTable.substr(s + 1, i - s - 1)));
                        s = i;
                    }
            }
            for (size_t si = 0; si < segs.size(); ++si) {
                RegFile f;
                if (si >= segmentNames.size() || !fileFromName(segmentNames[si], f)) continue;
                const std::string& seg = segs[si].second;
                size_t i = 0;
                while (i < seg.size()) {
                    if (seg[i] == '#') {
                        columns.push_back({f, -1, segs[si].first + i});
                        ++i;
                        continue;
                    }
                    if (std::isdigit(static_cast<unsigned char>(seg[i]))) {
                        size_t j = i;
                        while (j < seg.size() && std::isdigit(static_cast<unsigned char>(seg[j])))
                            ++j;
                        columns.push_back({f, std::stoi(seg.substr(i, j - i)), segs[si].first + j - 1});
                        i = j;
                        continue;
                    }
                    ++i;
                }
            }
        } else if (!columns.empty()) {
            auto o = line.find("/*");
            auto e = line.find("*/", o == std::string::npos ? 0 : o);
            if (o != std::string::npos && e != std::string::npos && o < c) {
                std::string hex = line.substr(o + 2, e - o - 2);
                bool isHex = !hex.empty();
                for (char ch : hex)
                    isHex = isHex && std::isxdigit(static_cast<unsigned char>(ch));
                if (isHex) {
                    LifeRangeRow row;
                    row.offset = std::stoull(hex, nullptr, 16);
                    for (const auto& col : columns) {
                        if (col.pos >= table.size()) continue;
                        if (col.index < 0) {
                            if (col.file != RegFile::R) continue;
                            // Count is right-aligned ending just before pos+2: read the number around pos.
                            size_t a = col.pos, b = col.pos;
                            while (a > 0 && std::isdigit(static_cast<unsigned char>(table[a - 1])))
                                --a;
                            while (b < table.size() && std::isdigit(static_cast<unsigned char>(table[b])))
                                ++b;
                            if (b > a)
                                row.liveGpr = std::stoi(table.substr(a, b - a));
                            else
                                row.liveGpr = 0;
                            continue;
                        }
                        char m = table[col.pos];
                        Reg r{col.file, uint16_t(col.index)};
                        if (m == '^' || m == 'x') row.defs.push_back(r);
                        if (m == 'v' || m == 'x') row.uses.push_back(r);
                    }
                    out[kernel][row.offset] = std::move(row);
                }
            }
        }
        previous = line;
    }
    return out;
}

} // namespace sassx
