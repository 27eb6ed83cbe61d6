#pragma once
// Minimum producer→consumer distances (cycles) for fixed-latency instructions, per architecture,
// loaded from resources/latency/sm_XX.json. A pair the table does not know yields nullopt: callers
// then keep the distance ptxas left ("as ptxas left it").
#include "core/analysis/latency_key.h"
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
// How `reader` reads `reg` (OperandRole): its guard predicate, a memory address (base, uniform offset
// or descriptor), the data a store, atomic or async copy reads, a predicate operand or carry-in, a
// uniform register read by a non-uniform instruction, else a plain register operand.
OperandRole operandRole(const Instruction& reader, const Reg& reg);
// The dependency keys of the back-to-back pair (first, second) the probe can measure and the checker
// looks up (LatencyKey's categories): RAW where first, of fixed latency, writes what second reads; WAR
// where second overwrites what first, of fixed latency, reads; WAW where both, of fixed latency, write
// a register; a scoreboard key where second waits on the write scoreboard first sets and reads its
// result; a spacing key for two memory instructions of one base opcode.
std::vector<LatencyKey> latencyPairKeys(const Instruction& first, const Instruction& second);

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
    // How every figure of this table is labelled where it is shown ("table: NAK
    // sm120_instr_latencies, B100 figures padded for desktop parts"); empty for tables whose source
    // says it, which are named "the sm_XX latency table".
    const std::string& label() const { return m_label; }
    bool isEmpty() const { return m_classDefault.empty() && m_pairs.empty(); }

    // A bound measured on the GPU for a dependency key (as latencyPairKeys makes them), from the
    // table's "measured" cells; nullopt where that key was never measured (or the probe could not see
    // it), and callers keep their other rules.
    std::optional<int> measuredCell(const LatencyKey& key) const;
    // Where the measured cells come from (a results file with device, date and command).
    const std::string& measuredSource() const { return m_measuredSource; }
    size_t measuredCount() const { return m_measured.size(); }

    // Key of an instruction for table lookups: an opcode override ("IMAD.WIDE", "IMAD") or its class name.
    std::string keyOf(const Instruction& ins) const;

private:
    std::string m_arch;
    std::string m_source;
    std::string m_label;
    int m_maxFixed = 15;
    std::optional<int> m_predicateToGuard;
    std::map<std::string, int> m_classDefault;                  // producer key → latency to any consumer
    std::map<std::pair<std::string, std::string>, int> m_pairs; // (producer key, consumer key)
    std::map<std::string, std::string> m_opcodeKeys;            // "IMAD.WIDE" → key
    std::map<LatencyKey, int> m_measured;                       // dependency key → cycles
    std::string m_measuredSource;
};

} // namespace sassx
