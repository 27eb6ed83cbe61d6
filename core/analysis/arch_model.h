#pragma once
// What sassx knows about one GPU architecture, and what it may do with its cubins, behind one
// interface: the fixed-latency figures the dependency graph, the checker and the estimate take, the
// yield and reuse class rows the control rules cite, where each comes from (measured here, a published
// table, or borrowed from another architecture), and the decision for each capability (view, estimate,
// edit, measure; docs/architectures.md). Each architecture family is one file (arch_ampere_ada.cpp,
// arch_hopper.cpp, arch_blackwell.cpp) over its latency table, resources/latency/sm_XX.json; a new
// architecture is a new file and a new table, and ArchModel::forSm picks it. Callers that refuse or
// label work by the evidence behind it ask latencyOrigin(), controlRulesOrigin() and decide(), never
// the architecture's number; every front end (CLI, GUI, searches, exports) asks editRefusal() below
// rather than deciding for itself.
#include "core/analysis/latency_table.h"
#include "core/analysis/yield_evidence.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sassx {

class Cubin;

enum class FigureOrigin : uint8_t
{
    Measured, // measured by sassx's probes on a GPU of this architecture (docs/status.md)
    Table,    // a published or public-tools table, never measured by sassx on this architecture
    Borrowed, // measured on another architecture and applied here without a measurement of its own
    None,     // no figures at all: every dependency keeps the distance ptxas left
};

// "measured", "table", "borrowed", "none".
const char* figureOriginName(FigureOrigin origin);

// The architecture a .cu or .ptx input is compiled for when none is named, and the one a session file
// without one names: Hopper, the architecture sassx measures on.
inline constexpr char kDefaultArch[] = "sm_90";

enum class ArchCapability : uint8_t
{
    View,     // disassemble, annotate, explain
    Estimate, // the static model's figures
    Edit,     // moves and control edits, the writer, searches, exports of edited code
    Measure,  // timing through the worker on a GPU of the architecture
};

struct ArchDecision
{
    bool allowed = false;
    FigureOrigin evidence = FigureOrigin::None; // Measured, Table or None: what backs the capability
    std::string reason;                         // one line: why it is refused, or what backs it
};

class ArchModel
{
public:
    virtual ~ArchModel() = default;

    // The architecture's number as the cubin names it (90 for sm_90, 100 for sm_100a).
    virtual int sm() const = 0;
    std::string name() const { return "sm_" + std::to_string(sm()); }
    // The architecture whose table files (resources/latency/, resources/estimate/) it takes: sm_100's
    // for sm_103, sm_120's for sm_121.
    virtual int tableSm() const = 0;

    // Fixed-latency figures (an empty table where the architecture has none).
    virtual const LatencyTable& latencies() const = 0;
    // Measured where the table carries cells measured on this architecture's GPU (its class figures
    // stay a table's: requiredLatency tells the two apart per dependency); Table for a table alone.
    virtual FigureOrigin latencyOrigin() const = 0;
    // How a figure of this architecture's table is labelled wherever it is shown: "table: …" for a
    // table, the measurement's docs/status.md row for measured cells.
    virtual std::string latencyLabel() const = 0;

    // Yield and reuse rules: where the class rows come from, and the rows themselves.
    virtual FigureOrigin controlRulesOrigin() const = 0;
    virtual const YieldClassEvidence& yieldEvidence(const Instruction& ins) const = 0;
    virtual const ReuseUnderY0Evidence& reuseUnderY0Evidence(const Instruction& ins) const = 0;

    // What sassx may do with a cubin of this architecture, and on what evidence; `archName` is the
    // cubin's own name for it ("sm_100a"), used in the sentence.
    virtual ArchDecision decide(ArchCapability capability, const std::string& archName) const = 0;

    // The model of an architecture, loaded once and shared; never null (an architecture sassx has no
    // file for gets a model with no figures: FigureOrigin::None).
    static std::shared_ptr<const ArchModel> forSm(int sm);
};

// The common shape of the architectures sassx knows: a latency table from resources/latency/, the
// class rows measured on Hopper (yield_evidence.h), and the origin of each as the family's file says.
// Its decisions are those of an architecture with no measurement of its own (Ampere, Ada, any other):
// everything allowed, on a table's evidence; a family file overrides decide() where it knows more.
class TableArchModel : public ArchModel
{
public:
    TableArchModel(int sm, int tableSm, FigureOrigin latencyOrigin, FigureOrigin controlOrigin);

    int sm() const override { return m_sm; }
    int tableSm() const override { return m_tableSm; }
    const LatencyTable& latencies() const override { return m_table; }
    FigureOrigin latencyOrigin() const override { return m_latencyOrigin; }
    std::string latencyLabel() const override;
    FigureOrigin controlRulesOrigin() const override { return m_controlOrigin; }
    const YieldClassEvidence& yieldEvidence(const Instruction& ins) const override;
    const ReuseUnderY0Evidence& reuseUnderY0Evidence(const Instruction& ins) const override;
    ArchDecision decide(ArchCapability capability, const std::string& archName) const override;

private:
    int m_sm;
    int m_tableSm;
    LatencyTable m_table;
    FigureOrigin m_latencyOrigin;
    FigureOrigin m_controlOrigin;
};

// One per architecture family file; nullptr where the family does not include `sm`.
std::shared_ptr<const ArchModel> makeAmpereAdaModel(int sm); // sm_80, sm_86, sm_89
std::shared_ptr<const ArchModel> makeHopperModel(int sm);    // sm_90
std::shared_ptr<const ArchModel> makeBlackwellModel(int sm); // sm_100 up to sm_129

// The names of a cubin's `.nv.capmerc.*` and `.nv.merc.*` sections, in section order.
std::vector<std::string> mercSections(const Cubin& cubin);

// Why moves and control edits of this cubin are refused, in one line; empty when they are allowed.
// The architecture decides first (decide(ArchCapability::Edit)); a cubin of an editable architecture
// that carries capmerc code is refused too, since the driver might run that instead of the edited
// `.text`.
std::string editRefusal(const Cubin& cubin);

} // namespace sassx
