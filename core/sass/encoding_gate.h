#pragma once
// Whether an instruction word with edited control bits is still the instruction ptxas wrote, by
// nvdisasm's own decoder: the evidence the control-edit rules use for encodings (docs/legality.md,
// "Control edits"). Opcodes encode only some (stall, yield, reuse) combinations: nvdisasm reports the
// others as "undefined value ... for table 'TABLES_opex_N'". Rather than trusting only the combinations
// ptxas happened to use, every edited word is decoded: valid when nvdisasm decodes it to the same
// instruction text apart from `.reuse` marks (the control fields themselves are not printed).
//
// The marks are part of the meaning, with one exception the gate names rather than hides: under a
// cleared yield bit (Y0) nvdisasm leaves out the `.reuse` marks of many ALU/FMA words (published accounts
// of Volta-era control codes describe Y0 as invalidating the operand-reuse cache), although the flags
// stay in the word and the same word with Y1 prints every one. Such a word is DecodeVerdict::
// SameReuseUnprinted: whether the hardware computes the same with it is not the decoder's question but
// the measured class table's (core/analysis/yield_evidence.h, ControlRules::encodingRefusal).
//
// Decoding is batched: the first question about a kernel decodes every word its control edits can
// produce (each instruction with either yield bit and every reuse mask the rules can reach, at ptxas'
// stall, and every stall with ptxas' reuse flags and either yield bit) as one raw instruction binary
// (`nvdisasm --binary SMxy`), in parallel chunks; words outside that grid are decoded on demand. One gate
// per kernel per process, found again by a hash of the kernel's words.
#include "core/sass/listing.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sassx {

// What nvdisasm makes of an edited word, against ptxas' own word for the instruction.
enum class DecodeVerdict : uint8_t
{
    Same,               // the same instruction text, every reuse flag written printed as `.reuse`
    SameReuseUnprinted, // the same text; the word has Y0 and reuse flags, nvdisasm prints none of
                        // them, and the same word with Y1 prints them all
    Other,              // undecodable, another instruction, or marks other than the flags for another reason
};

struct DecodeJudgement
{
    DecodeVerdict verdict = DecodeVerdict::Other;
    std::string why; // empty for Same; the decoder's words otherwise
};

class EncodingGate
{
public:
    // The gate of this listing, shared with every earlier caller that asked for the same kernel (same
    // architecture and words).
    // nullptr for a listing without encodings (one built from text, whose raw words hold only control
    // bits): such a listing is never written to a cubin, so there is nothing to decode.
    static std::shared_ptr<EncodingGate> forListing(const KernelListing& listing);

    // How instruction i with high word `hi` (its low word unchanged) decodes. Thread-safe; the first
    // call decodes the kernel's batch (about a second per thousand instructions).
    DecodeJudgement judge(uint32_t i, uint64_t hi) const;
    // nullopt when judge() says Same; otherwise why not, in the decoder's words (a word whose marks
    // nvdisasm leaves out under Y0 is named as such).
    std::optional<std::string> refusal(uint32_t i, uint64_t hi) const;

    // Decodes the batch now (a load job calls it so that the first edit does not wait).
    void prime() const;

    // Words decoded so far and nvdisasm runs made: for tests and benchmarks.
    size_t decodedWords() const;
    int decoderRuns() const;

    explicit EncodingGate(const KernelListing& listing);

private:
    struct Verdict
    {
        bool sameText = false; // decodes, to ptxas' instruction apart from `.reuse` marks
        int marks = 0;         // `.reuse` marks printed
        std::string why;       // why not sameText
    };
    struct Word
    {
        uint32_t instruction = 0;
        uint64_t hi = 0;
    };
    struct KeyHash
    {
        size_t operator()(const std::pair<uint32_t, uint64_t>& k) const
        {
            return size_t(k.second * 0x9E3779B97F4A7C15ull) ^ (size_t(k.first) << 7);
        }
    };
    void decodeLocked(std::vector<Word> words) const;
    const Verdict& verdictLocked(uint32_t i, uint64_t hi) const;

    std::string m_arch; // "SM90a"
    std::vector<uint64_t> m_lo, m_hi;
    std::vector<char> m_branch; // relative targets are printed as absolute addresses
    std::vector<Word> m_grid;   // the up-front batch
    mutable std::mutex m_mutex;
    mutable bool m_primed = false;
    mutable int m_runs = 0;
    mutable std::unordered_map<std::pair<uint32_t, uint64_t>, Verdict, KeyHash> m_verdicts;
    mutable std::vector<std::string> m_refText; // per instruction, ptxas' word decoded and normalised
    mutable std::vector<char> m_refDone;
};

// The text nvdisasm prints for a word, with `.reuse` marks dropped and, for a branch, every hex number
// made relative to the word's own address: what two encodings of one instruction share.
std::string normalisedDecode(const std::string& text, uint64_t address, bool branch);

} // namespace sassx
