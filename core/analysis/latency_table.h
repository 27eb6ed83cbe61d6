#pragma once
// Minimum producer→consumer distances (cycles) for fixed-latency instructions, per architecture,
// loaded from resources/latency/sm_XX.json. A pair the table does not know yields nullopt: callers
// then keep the distance ptxas left ("as ptxas left it").
#include "core/common/result.h"
#include "core/sass/instruction.h"

#include <map>
#include <optional>
#include <string>

namespace sassx {

class LatencyTable
{
public:
    static Result<LatencyTable> load(int sm); // resources/latency/sm_XX.json
    static Result<LatencyTable> fromJson(const std::string& text);

    // RAW latency of producer → consumer through register reg (guard use if asGuard).
    std::optional<int> rawLatency(const Instruction& producer, const Instruction& consumer, const Reg& reg,
                                  bool asGuard) const;
    int maxFixedLatency() const { return m_maxFixed; }
    const std::string& arch() const { return m_arch; }
    const std::string& source() const { return m_source; }
    bool isEmpty() const { return m_classDefault.empty() && m_pairs.empty(); }

    // Key of an instruction for table lookups: an opcode override ("IMAD.WIDE", "IMAD") or its class name.
    std::string keyOf(const Instruction& ins) const;

private:
    std::string m_arch;
    std::string m_source;
    int m_maxFixed = 15;
    std::optional<int> m_predicateToGuard;
    std::map<std::string, int> m_classDefault;                  // producer key → latency to any consumer
    std::map<std::pair<std::string, std::string>, int> m_pairs; // (producer key, consumer key)
    std::map<std::string, std::string> m_opcodeKeys;            // "IMAD.WIDE" → key
};

} // namespace sassx
