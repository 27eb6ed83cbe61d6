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

// Keys of the measured timing model (bench/latency/README.md, resources/latency/sm_XX.json "measured").
// An opcode key is the base opcode, plus the first modifier where it selects another pipe or result
// width (IMAD.WIDE, IMAD.HI, IMAD.MOV, IMAD.SHL, IMAD.IADD, IMAD.X, HFMA2.MMA).
std::string latencyOpcodeKey(const Instruction& ins);
// How `reader` reads `reg`: "guard" (its guard predicate), "addr" (a memory address, base, uniform
// offset or descriptor), "data" (the data a store, atomic or async copy reads), "pred" (a predicate
// operand or carry-in), "ur" (a uniform register read by a non-uniform instruction), else "reg".
std::string operandKind(const Instruction& reader, const Reg& reg);
// "R", "UR", "P", "UP" or "B": the register-file part of WAR and WAW keys.
const char* regFileKey(const Reg& r);
// The dependency keys of the back-to-back pair (first, second) the probe can measure and the checker
// looks up: "RAW|W|R|kind" (first writes what second reads; first of fixed latency), "WAR|R|W|file"
// (second overwrites what first, of fixed latency, reads), "WAW|W|W|file" (both write a register; both
// of fixed latency), "SB|W|R" (second waits on the write scoreboard first sets and reads its result),
// "SPACE|OP" (two memory instructions of one base opcode). Files as regFileKey names them.
std::vector<std::string> latencyPairKeys(const Instruction& first, const Instruction& second);

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

    // A bound measured on the GPU for a dependency key (latencyPairKeys' form, e.g.
    // "RAW|IMAD|LOP3|reg"), from the table's "measured" cells; nullopt where that key was never
    // measured (or the probe could not see it), and callers keep their other rules.
    std::optional<int> measuredCell(const std::string& key) const;
    // Where the measured cells come from (a results file with device, date and command).
    const std::string& measuredSource() const { return m_measuredSource; }
    size_t measuredCount() const { return m_measured.size(); }

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
    std::map<std::string, int> m_measured;                      // dependency key → cycles
    std::string m_measuredSource;
};

} // namespace sassx
