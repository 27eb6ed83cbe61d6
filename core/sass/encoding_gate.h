#pragma once
// Whether an instruction word with edited control bits is still the instruction ptxas wrote, by
// nvdisasm's own decoder: the evidence the control-edit rules use for encodings (docs/legality.md,
// "Control edits"). Opcodes encode only some (stall, yield, reuse) combinations: nvdisasm reports the
// others as "undefined value ... for table 'TABLES_opex_N'". Rather than trusting only the combinations
// ptxas happened to use, every edited word is decoded: valid when nvdisasm decodes it to the same
// instruction text apart from `.reuse` marks (the control fields themselves are not printed).
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

class EncodingGate
{
public:
    // The gate of this listing, shared with every earlier caller that asked for the same kernel (same
    // architecture and words).
    // nullptr for a listing without encodings (one built from text, whose raw words hold only control
    // bits): such a listing is never written to a cubin, so there is nothing to decode.
    static std::shared_ptr<EncodingGate> forListing(const KernelListing& listing);

    // nullopt when instruction i with high word `hi` (its low word unchanged) decodes to ptxas'
    // instruction; otherwise why not, in the decoder's words. Thread-safe; the first call decodes the
    // kernel's batch (about a second per thousand instructions).
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
        bool valid = false;
        std::string why;
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
