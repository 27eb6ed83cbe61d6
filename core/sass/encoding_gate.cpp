#include "core/sass/encoding_gate.h"

#include "core/common/subprocess.h"
#include "core/sass/nvdisasm.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <future>
#include <map>
#include <thread>

namespace sassx {
namespace {

constexpr uint64_t kStallShift = 41, kYieldBit = 1ull << 45, kReuseShift = 58;
constexpr uint64_t kStallMask = 0xFull << kStallShift, kReuseMask = 0xFull << kReuseShift;

uint64_t withControl(uint64_t hi, int stall, int yield, int reuse)
{
    hi &= ~(kStallMask | kYieldBit | kReuseMask);
    return hi | uint64_t(stall & 0xF) << kStallShift | (yield ? kYieldBit : 0) |
           uint64_t(reuse & 0xF) << kReuseShift;
}

// nvdisasm's name for the architecture of a raw binary: the arch-specific variant where there is one,
// so that every instruction of the family (wgmma on sm_90a) decodes.
std::string rawArch(int sm)
{
    switch (sm) {
    case 90:
    case 100:
    case 101:
    case 103:
    case 110:
    case 120:
    case 121:
        return "SM" + std::to_string(sm) + "a";
    default:
        return "SM" + std::to_string(sm);
    }
}

uint64_t fnv1a(uint64_t h, uint64_t v)
{
    for (int b = 0; b < 8; ++b) {
        h ^= (v >> (8 * b)) & 0xFF;
        h *= 0x100000001B3ull;
    }
    return h;
}

struct ChunkResult
{
    std::vector<std::string> text;  // per word: decoded text, normalised ("" if it did not decode)
    std::vector<int> reuseMarks;    // per word: `.reuse` marks printed
    std::vector<std::string> error; // per word: the decoder's complaint ("" if it decoded)
};

// One error line per undecodable word comes back (merged into stdout: all of them, not a tail).
Result<ProcessOutput> runRaw(const std::string& arch, const std::vector<uint8_t>& bytes)
{
    return runNvdisasmOutput(bytes, {"--binary", arch}, true, 300000);
}

std::vector<uint8_t> rawBytes(const std::vector<std::pair<uint64_t, uint64_t>>& words)
{
    std::vector<uint8_t> bytes;
    bytes.reserve(words.size() * 16);
    for (const auto& [lo, hi] : words)
        for (uint64_t w : {lo, hi})
            for (int b = 0; b < 8; ++b)
                bytes.push_back(uint8_t(w >> (8 * b)));
    return bytes;
}

// Decodes one chunk in two nvdisasm runs: the first names every word it rejects ("... at address
// 0x60"), and prints nothing else when there is one; the second decodes the others.
ChunkResult decodeChunk(const std::string& arch, const std::vector<std::pair<uint64_t, uint64_t>>& words,
                        const std::vector<char>& branch)
{
    ChunkResult r;
    r.text.assign(words.size(), {});
    r.reuseMarks.assign(words.size(), 0);
    r.error.assign(words.size(), {});
    auto first = runRaw(arch, rawBytes(words));
    if (!first) {
        r.error.assign(words.size(), "cannot run nvdisasm: " + first.message());
        return r;
    }
    bool anyRejected = false;
    std::string unexplained;
    size_t from = 0;
    const std::string& out = first->out;
    while (from < out.size()) {
        size_t nl = out.find('\n', from);
        if (nl == std::string::npos) nl = out.size();
        const std::string line = out.substr(from, nl - from);
        from = nl + 1;
        if (line.find("error") == std::string::npos) continue;
        const size_t at = line.find(" at address 0x");
        std::string msg = line.substr(0, at);
        if (const size_t colon = msg.find(": "); colon != std::string::npos) msg = msg.substr(colon + 2);
        if (at == std::string::npos) {
            if (unexplained.empty()) unexplained = msg;
            continue;
        }
        const uint64_t address = std::strtoull(line.c_str() + at + 12, nullptr, 16);
        if (address / 16 < words.size()) {
            r.error[address / 16] = msg;
            anyRejected = true;
        }
    }
    if (!first->ok() && !anyRejected) {
        r.error.assign(words.size(), "nvdisasm failed (" + first->exit.text() + "): " +
                                         (unexplained.empty() ? std::string("no message") : unexplained));
        return r;
    }
    std::vector<size_t> good;
    std::vector<std::pair<uint64_t, uint64_t>> goodWords;
    for (size_t k = 0; k < words.size(); ++k)
        if (r.error[k].empty()) {
            good.push_back(k);
            goodWords.push_back(words[k]);
        }
    if (good.empty()) return r;
    auto second = anyRejected ? runRaw(arch, rawBytes(goodWords)) : std::move(first);
    if (!second || !second->ok()) {
        const std::string why = second ? second->exit.text() : second.message();
        for (size_t k : good)
            r.error[k] = "nvdisasm failed on the words it accepted (" + why + ")";
        return r;
    }
    // "        /*0060*/                   LDC R1, c[0x0][0x28] ;"
    from = 0;
    const std::string& text = second->out;
    while (from < text.size()) {
        size_t nl = text.find('\n', from);
        if (nl == std::string::npos) nl = text.size();
        const std::string_view line(text.data() + from, nl - from);
        from = nl + 1;
        const size_t open = line.find("/*"), close = line.find("*/");
        if (open == std::string_view::npos || close == std::string_view::npos || close < open) continue;
        const uint64_t address =
            std::strtoull(std::string(line.substr(open + 2, close - open - 2)).c_str(), nullptr, 16);
        const size_t slot = address / 16;
        if (slot >= good.size()) continue;
        std::string_view body = line.substr(close + 2);
        const size_t semi = body.rfind(';');
        if (semi != std::string_view::npos) body = body.substr(0, semi);
        const size_t a = body.find_first_not_of(" \t"), b = body.find_last_not_of(" \t");
        for (size_t at = body.find(".reuse"); at != std::string_view::npos; at = body.find(".reuse", at + 6))
            ++r.reuseMarks[good[slot]];
        if (a != std::string_view::npos)
            r.text[good[slot]] =
                normalisedDecode(std::string(body.substr(a, b - a + 1)), address, branch[good[slot]]);
    }
    for (size_t k : good)
        if (r.text[k].empty()) r.error[k] = "nvdisasm printed nothing for it";
    return r;
}

} // namespace

std::string normalisedDecode(const std::string& text, uint64_t address, bool branch)
{
    std::string out;
    out.reserve(text.size());
    for (size_t k = 0; k < text.size();) {
        if (text.compare(k, 6, ".reuse") == 0) {
            k += 6;
            continue;
        }
        if (branch && text.compare(k, 2, "0x") == 0 &&
            (k == 0 || !std::isalnum((unsigned char)text[k - 1]))) {
            size_t e = k + 2;
            while (e < text.size() && std::isxdigit((unsigned char)text[e]))
                ++e;
            const long long rel =
                (long long)std::strtoull(text.substr(k + 2, e - k - 2).c_str(), nullptr, 16) -
                (long long)address;
            out += "(rel " + std::to_string(rel) + ")";
            k = e;
            continue;
        }
        out += text[k++];
    }
    return out;
}

std::shared_ptr<EncodingGate> EncodingGate::forListing(const KernelListing& listing)
{
    if (listing.instructions.empty()) return nullptr;
    // A real instruction always has opcode bits in its low word; makeListing's words carry control only.
    for (const auto& ins : listing.instructions)
        if ((ins.lo & 0xFFF) == 0) return nullptr;
    uint64_t h = fnv1a(0xCBF29CE484222325ull, uint64_t(listing.sm));
    for (const auto& ins : listing.instructions)
        h = fnv1a(fnv1a(h, ins.lo), ins.hi);
    static std::mutex mutex;
    static std::map<uint64_t, std::weak_ptr<EncodingGate>> gates;
    std::lock_guard lock(mutex);
    if (auto it = gates.find(h); it != gates.end())
        if (auto gate = it->second.lock()) return gate;
    // Gates of kernels nobody holds any more leave the map (a GUI session opens many kernels).
    std::erase_if(gates, [](const auto& entry) { return entry.second.expired(); });
    auto gate = std::make_shared<EncodingGate>(listing);
    gates[h] = gate;
    return gate;
}

EncodingGate::EncodingGate(const KernelListing& listing) : m_arch(rawArch(listing.sm))
{
    const size_t n = listing.instructions.size();
    m_lo.reserve(n);
    m_hi.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        const auto& ins = listing.instructions[i];
        m_lo.push_back(ins.lo);
        m_hi.push_back(ins.hi);
        m_branch.push_back(ins.branchTarget.has_value() || ins.controlFlow);
        const Control& c = ins.control;
        // Every reuse mask (a checker asks about all of them, also those its reuse rule then refuses).
        const uint8_t reach = 7;
        for (int mask = reach;; mask = (mask - 1) & reach) {
            for (int y = 0; y < 2; ++y)
                m_grid.push_back({i, withControl(ins.hi, c.stall, y, mask | (c.reuse & 8))});
            if (mask == 0) break;
        }
        for (int s = 1; s <= 15; ++s)
            for (int y = 0; y < 2; ++y)
                if (s != c.stall) m_grid.push_back({i, withControl(ins.hi, s, y, c.reuse)});
    }
    m_refText.assign(n, {});
    m_refDone.assign(n, 0);
}

void EncodingGate::prime() const
{
    std::lock_guard lock(m_mutex);
    if (m_primed) return;
    m_primed = true;
    decodeLocked(m_grid);
}

const EncodingGate::Verdict& EncodingGate::verdictLocked(uint32_t i, uint64_t hi) const
{
    if (!m_primed) {
        m_primed = true;
        decodeLocked(m_grid);
    }
    auto it = m_verdicts.find({i, hi});
    if (it == m_verdicts.end()) {
        // A word outside the batch: decode every control value of this instruction at once (one
        // nvdisasm run per instruction at most), since the next question is likely about a neighbour.
        std::vector<Word> all;
        for (int s = 0; s < 16; ++s)
            for (int y = 0; y < 2; ++y)
                for (int r = 0; r < 8; ++r) {
                    const uint64_t w = withControl(hi, s, y, r | int((hi >> kReuseShift) & 8));
                    if (!m_verdicts.count({i, w})) all.push_back({i, w});
                }
        decodeLocked(std::move(all));
        it = m_verdicts.find({i, hi});
        if (it == m_verdicts.end()) {
            static const Verdict none{false, 0, "nvdisasm gave no answer for the edited word"};
            return none;
        }
    }
    return it->second;
}

DecodeJudgement EncodingGate::judge(uint32_t i, uint64_t hi) const
{
    if (i >= m_hi.size()) return {DecodeVerdict::Other, "no such instruction"};
    if (hi == m_hi[i]) return {DecodeVerdict::Same, {}}; // ptxas' own word
    std::lock_guard lock(m_mutex);
    const Verdict v = verdictLocked(i, hi); // a copy: the twin's decode may rehash the map
    if (!v.sameText) return {DecodeVerdict::Other, v.why};
    const int flags = std::popcount(unsigned((hi >> kReuseShift) & 7));
    if (v.marks == flags) return {DecodeVerdict::Same, {}};
    const std::string counted = "nvdisasm prints " + std::to_string(v.marks) +
                                " reuse flag(s) on the edited word, not the " + std::to_string(flags) +
                                " written";
    // Marks left out under Y0 only when the same word with Y1 prints every flag: then the field means
    // the same flags and only the yield bit hides them. Anything else (a form that reads the field
    // differently, some marks printed) stays another instruction.
    if (!(hi & kYieldBit) && v.marks == 0) {
        const Verdict twin = verdictLocked(i, hi | kYieldBit);
        if (twin.sameText && twin.marks == flags)
            return {DecodeVerdict::SameReuseUnprinted,
                    counted + " (it leaves out the marks under Y0; with Y1 it prints all " +
                        std::to_string(flags) + ")"};
    }
    return {DecodeVerdict::Other, counted};
}

std::optional<std::string> EncodingGate::refusal(uint32_t i, uint64_t hi) const
{
    auto j = judge(i, hi);
    if (j.verdict == DecodeVerdict::Same) return std::nullopt;
    return std::move(j.why);
}

size_t EncodingGate::decodedWords() const
{
    std::lock_guard lock(m_mutex);
    return m_verdicts.size();
}

int EncodingGate::decoderRuns() const
{
    std::lock_guard lock(m_mutex);
    return m_runs;
}

void EncodingGate::decodeLocked(std::vector<Word> words) const
{
    // ptxas' own words of the instructions involved come along: their text is what an edit must keep.
    std::vector<char> needRef(m_hi.size(), 0);
    for (const auto& w : words)
        if (!m_refDone[w.instruction]) needRef[w.instruction] = 1;
    for (uint32_t i = 0; i < needRef.size(); ++i)
        if (needRef[i]) words.push_back({i, m_hi[i]});
    if (words.empty()) return;
    // Chunks decoded in parallel: nvdisasm reads about 25,000 words a second.
    const size_t threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    const size_t chunks = std::min(threads, (words.size() + 3999) / 4000);
    const size_t per = (words.size() + chunks - 1) / chunks;
    std::vector<std::future<ChunkResult>> futures;
    for (size_t c = 0; c < chunks; ++c) {
        std::vector<std::pair<uint64_t, uint64_t>> part;
        std::vector<char> branch;
        for (size_t k = c * per; k < std::min(words.size(), (c + 1) * per); ++k) {
            part.emplace_back(m_lo[words[k].instruction], words[k].hi);
            branch.push_back(m_branch[words[k].instruction]);
        }
        futures.push_back(
            std::async(std::launch::async, decodeChunk, m_arch, std::move(part), std::move(branch)));
    }
    std::vector<std::string> text(words.size()), error(words.size());
    std::vector<int> marks(words.size(), 0);
    for (size_t c = 0; c < chunks; ++c) {
        ChunkResult r = futures[c].get();
        for (size_t k = 0; k < r.text.size(); ++k) {
            text[c * per + k] = std::move(r.text[k]);
            marks[c * per + k] = r.reuseMarks[k];
            error[c * per + k] = std::move(r.error[k]);
        }
    }
    m_runs += int(chunks);
    for (size_t k = 0; k < words.size(); ++k) {
        const auto& w = words[k];
        if (w.hi == m_hi[w.instruction] && !m_refDone[w.instruction]) {
            m_refDone[w.instruction] = 1;
            m_refText[w.instruction] = text[k]; // "" when even ptxas' word does not decode
        }
    }
    for (size_t k = 0; k < words.size(); ++k) {
        const auto& w = words[k];
        Verdict v;
        v.marks = marks[k];
        const std::string& ref = m_refText[w.instruction];
        if (!error[k].empty())
            v.why = "nvdisasm cannot decode the edited word (" + error[k] + ")";
        else if (ref.empty())
            v.why = "nvdisasm cannot decode ptxas' own word, so no edit of it can be checked";
        else if (text[k] != ref)
            v.why = "nvdisasm decodes the edited word as '" + text[k] + "', not '" + ref + "'";
        else
            v.sameText = true;
        m_verdicts[{w.instruction, w.hi}] = std::move(v);
    }
}

} // namespace sassx
