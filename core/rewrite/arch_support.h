#pragma once
// What sassx may do with a cubin of each architecture, and on what evidence (docs/architectures.md).
// Edits are only as sound as the latencies, yield and reuse rules behind the checker; those were
// measured on Hopper (docs/status.md) and hold by construction for the Ampere/Ada encodings the tests
// cover. Blackwell (sm_100 and up) decodes with the same control-code layout, but none of its
// latency, yield or reuse classes has been measured, and its cubins carry `.nv.capmerc.text.<kernel>`,
// a second form of the code the driver may finalise instead of `.text`. Until a Blackwell GPU has run
// bench/blackwell/run_device.sh, edits of those cubins are refused here, once, with the reason; every
// front end (CLI, GUI, searches, exports) asks this file rather than deciding for itself.
#include "core/cubin/cubin.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sassx {

enum class ArchCapability : uint8_t
{
    View,     // disassemble, annotate, explain
    Estimate, // the static model's figures
    Edit,     // moves and control edits, the writer, searches, exports of edited code
    Measure,  // timing through the worker on a GPU of the architecture
};

// Where a capability's figures or rules come from.
enum class ArchEvidence : uint8_t
{
    Measured, // a GPU of the architecture measured them (a docs/status.md row)
    Table,    // a published or derived table, never a measurement
    None,
};

enum class ArchFamily : uint8_t
{
    Unknown,
    Ampere,    // sm_80, sm_86, sm_87
    Ada,       // sm_89
    Hopper,    // sm_90
    Blackwell, // sm_100, 101, 103, 110, 120, 121
};

struct ArchDecision
{
    bool allowed = false;
    ArchEvidence evidence = ArchEvidence::None;
    std::string reason; // one line: why it is refused, or what backs it
};

ArchFamily archFamily(int sm);
// The decision for one capability on a cubin of `sm` ("sm_100a" is `archName`, used in the sentence).
ArchDecision archSupport(int sm, const std::string& archName, ArchCapability capability);

// The names of a cubin's `.nv.capmerc.*` and `.nv.merc.*` sections, in section order.
std::vector<std::string> mercSections(const Cubin& cubin);

// Why moves and control edits of this cubin are refused, in one line; empty when they are allowed.
// The architecture decides first; a cubin of an editable architecture that carries capmerc code is
// refused too, since the driver might run that instead of the edited `.text`.
std::string editRefusal(const Cubin& cubin);

} // namespace sassx
