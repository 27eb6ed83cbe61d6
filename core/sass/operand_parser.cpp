// Operand text as nvdisasm prints it: "R2", "R2.64", "-|R4|.reuse", "!P0", "desc[UR6][R2.64+0x10]",
// "[R0+UR4]", "c[0x0][0x210]", "cx[UR4][0x10]", "0x4", "-1.5", "SR_TID.X", "gdesc[UR4]".
#include "core/sass/listing.h"

#include <regex>

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace sassx {
namespace {

std::string trim(std::string_view s)
{
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return std::string(s.substr(b, e - b));
}

bool parseInt(std::string_view s, int64_t& out)
{
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    }
    if (s.empty()) return false;
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc{} || p != s.data() + s.size()) return false;
    out = neg ? -int64_t(v) : int64_t(v);
    return true;
}

// Parses a bare register name with optional dotted suffixes. Returns false if not a register.
bool parseRegister(std::string_view s, Operand& op)
{
    size_t dot = s.find('.');
    std::string_view name = s.substr(0, dot);
    std::string_view rest = dot == std::string_view::npos ? std::string_view{} : s.substr(dot);
    auto number = [&](std::string_view prefix, RegFile file, uint16_t zero, std::string_view zeroName) {
        if (name == zeroName) {
            op.isZeroReg = true;
            return true;
        }
        if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return false;
        std::string_view digits = name.substr(prefix.size());
        unsigned v = 0;
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (ec != std::errc{} || p != digits.data() + digits.size()) return false;
        if (v == zero && file != RegFile::B) {
            op.isZeroReg = true;
            return true;
        }
        op.reg = Reg{file, uint16_t(v)};
        return true;
    };
    bool ok = false;
    if (name.starts_with("UR"))
        ok = number("UR", RegFile::UR, kURZ, "URZ");
    else if (name.starts_with("UP"))
        ok = number("UP", RegFile::UP, kPT, "UPT");
    else if (name.starts_with("R"))
        ok = number("R", RegFile::R, kRZ, "RZ");
    else if (name.starts_with("P"))
        ok = number("P", RegFile::P, kPT, "PT");
    else if (name.starts_with("B"))
        ok = number("B", RegFile::B, 0xFFFF, "BZ");
    if (!ok) return false;
    // Suffixes: width, .reuse, half/byte selectors.
    while (!rest.empty()) {
        size_t next = rest.find('.', 1);
        std::string_view part =
            rest.substr(1, next == std::string_view::npos ? std::string_view::npos : next - 1);
        if (part == "64")
            op.regWidth = 2;
        else if (part == "128")
            op.regWidth = 4;
        else if (part == "reuse")
            op.reuse = true;
        else
            op.suffix += "." + std::string(part);
        if (next == std::string_view::npos) break;
        rest = rest.substr(next);
    }
    op.kind = Operand::Kind::Register;
    return true;
}

// "R2.64+0x10", "R0+UR4", "UR4+0x10", "0x10", "R7", "R2.64+UR4+-0x8"
void parseAddress(std::string_view raw, Operand& op)
{
    // "R2.64-0x8" → "R2.64+-0x8" so that one separator suffices.
    std::string norm;
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '-' && i > 0 && raw[i - 1] != '+') norm += '+';
        norm += raw[i];
    }
    std::string_view s = norm;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t plus = s.find('+', pos);
        std::string term =
            trim(s.substr(pos, plus == std::string_view::npos ? std::string_view::npos : plus - pos));
        if (!term.empty()) {
            int64_t v = 0;
            Operand r;
            if (parseInt(term, v)) {
                op.memOffset += v;
            } else if (parseRegister(term, r)) {
                if (r.reg && r.reg->file == RegFile::UR) {
                    op.memUniform = r.reg;
                    op.memUniformWidth = r.regWidth;
                } else if (r.reg) {
                    op.memBase = r.reg;
                    op.memBaseWidth = r.regWidth;
                }
            }
        }
        if (plus == std::string_view::npos) break;
        pos = plus + 1;
    }
}

bool parseFloatLiteral(std::string_view s, Operand& op)
{
    if (s == "INF" || s == "+INF" || s == "-INF" || s == "QNAN" || s == "+QNAN" || s == "-QNAN" ||
        s == "NAN") {
        op.isFloat = true;
        op.kind = Operand::Kind::Immediate;
        return true;
    }
    char* end = nullptr;
    std::string str(s);
    double d = std::strtod(str.c_str(), &end);
    if (end && *end == '\0' && str.find_first_of(".eE") != std::string::npos) {
        op.isFloat = true;
        op.floatValue = d;
        op.kind = Operand::Kind::Immediate;
        return true;
    }
    return false;
}

} // namespace

std::vector<std::string> splitOperands(const std::string& text)
{
    std::vector<std::string> out;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '[' || c == '(' || c == '{')
            ++depth;
        else if ((c == ']' || c == ')' || c == '}') && depth > 0)
            --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(trim(std::string_view(text).substr(start, i - start)));
            start = i + 1;
        }
    }
    std::string last = trim(std::string_view(text).substr(start));
    if (!last.empty() || !out.empty()) out.push_back(last);
    return out;
}

Operand parseOperand(const std::string& raw)
{
    Operand op;
    op.text = raw;
    std::string_view s = raw;
    // Prefix modifiers.
    while (!s.empty() && (s[0] == '!' || s[0] == '-' || s[0] == '~' || s[0] == '|')) {
        if (s[0] == '!' || s[0] == '-' || s[0] == '~') op.negated = true;
        if (s[0] == '|') op.absolute = true;
        if (s[0] == '-' && s.size() > 1 &&
            (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == 'I' || s[1] == 'Q'))
            break; // negative literal
        s.remove_prefix(1);
    }
    // Strip closing abs bars: "|R2|.reuse" → "R2.reuse"
    std::string cleaned;
    if (op.absolute) {
        for (char c : s)
            if (c != '|') cleaned += c;
        s = cleaned;
    }
    if (s.empty()) return op;

    // Memory / constant / descriptor forms.
    auto lb = s.find('[');
    if (lb != std::string_view::npos) {
        std::string_view head = s.substr(0, lb);
        // Collect bracket groups.
        std::vector<std::string_view> groups;
        size_t p = lb;
        while (p < s.size() && s[p] == '[') {
            size_t close = s.find(']', p);
            if (close == std::string_view::npos) break;
            groups.push_back(s.substr(p + 1, close - p - 1));
            p = close + 1;
        }
        if (head == "c" || head == "cx") {
            op.kind = Operand::Kind::Constant;
            if (!groups.empty()) {
                int64_t bank = 0;
                Operand r;
                if (parseInt(groups[0], bank))
                    op.constBank = int(bank);
                else if (parseRegister(groups[0], r))
                    op.constBankReg = r.reg;
            }
            if (groups.size() > 1) {
                Operand addr;
                parseAddress(groups[1], addr);
                op.constOffset = addr.memOffset;
                op.constOffsetReg = addr.memBase ? addr.memBase : addr.memUniform;
            }
            return op;
        }
        op.kind = Operand::Kind::Memory;
        if (head == "desc" || head == "gdesc" || head == "tmem") {
            Operand r;
            if (!groups.empty() && parseRegister(groups[0], r)) op.memDescriptor = r.reg;
            for (size_t g = 1; g < groups.size(); ++g)
                parseAddress(groups[g], op);
        } else {
            for (auto g : groups)
                parseAddress(g, op);
        }
        return op;
    }

    int64_t v = 0;
    if (parseInt(s, v)) {
        op.kind = Operand::Kind::Immediate;
        op.intValue = v;
        return op;
    }
    if (parseFloatLiteral(s, op)) return op;
    if (s.starts_with("SR_") || s == "SRZ") {
        op.kind = Operand::Kind::Special;
        return op;
    }
    if (parseRegister(s, op)) return op;
    op.kind = Operand::Kind::Other;
    return op;
}

// nvdisasm -json glues the two addresses of copy instructions into one operand: LDGSTS prints
// "desc[UR6][R2.64][R7]" (global source, then shared destination) or "[R7][R2.64]" before sm_90.
// Split them back into the order the text listing uses: destination first.
std::vector<std::string> splitGluedAddresses(const std::string& part)
{
    std::vector<std::pair<size_t, size_t>> groups; // [open, close]
    size_t lb = part.find('[');
    if (lb == std::string::npos) return {part};
    std::string head = part.substr(0, lb);
    // nvdisasm 13.0's JSON also drops the comma between a load's destination and its address
    // ("R36[R97]" for "R36, [R97]"): a register followed by an address is two operands, or the
    // destination would be lost to the analysis.
    static const std::regex kRegister(R"(^U?(R[0-9]+|RZ)(\.[0-9A-Z]+)*$)");
    if (head != "" && head != "desc" && std::regex_match(head, kRegister)) {
        std::vector<std::string> out{head};
        for (auto& rest : splitGluedAddresses(part.substr(lb)))
            out.push_back(std::move(rest));
        return out;
    }
    if (head != "" && head != "desc") return {part};
    size_t p = lb;
    while (p < part.size() && part[p] == '[') {
        size_t close = part.find(']', p);
        if (close == std::string::npos) return {part};
        groups.emplace_back(p, close);
        p = close + 1;
    }
    if (p != part.size()) return {part};
    auto text = [&](size_t a, size_t b) {
        return part.substr(groups[a].first, groups[b].second - groups[a].first + 1);
    };
    if (head == "desc" && groups.size() >= 3) return {text(2, groups.size() - 1), head + text(0, 1)};
    if (head.empty() && groups.size() >= 2) {
        std::vector<std::string> out;
        for (size_t g = 0; g < groups.size(); ++g)
            out.push_back(text(g, g));
        return out;
    }
    return {part};
}

std::vector<Operand> parseOperands(const std::string& text)
{
    std::vector<Operand> ops;
    for (const auto& part : splitOperands(text))
        if (!part.empty())
            for (const auto& piece : splitGluedAddresses(part))
                ops.push_back(parseOperand(piece));
    return ops;
}

} // namespace sassx
