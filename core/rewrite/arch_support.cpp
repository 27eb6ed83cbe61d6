#include "core/rewrite/arch_support.h"

namespace sassx {

namespace {

bool startsWith(const std::string& s, const char* prefix)
{
    return s.rfind(prefix, 0) == 0;
}

std::string blackwellEditRefusal(const std::string& arch)
{
    return arch +
           ": no measured latency/yield/reuse evidence for Blackwell (bench/blackwell/run_device.sh has not "
           "run on a Blackwell GPU); edits are off";
}

} // namespace

ArchFamily archFamily(int sm)
{
    if (sm == 80 || sm == 86 || sm == 87) return ArchFamily::Ampere;
    if (sm == 89) return ArchFamily::Ada;
    if (sm == 90) return ArchFamily::Hopper;
    if (sm >= 100 && sm < 130) return ArchFamily::Blackwell;
    return ArchFamily::Unknown;
}

ArchDecision archSupport(int sm, const std::string& archName, ArchCapability capability)
{
    const ArchFamily family = archFamily(sm);
    const bool blackwell = family == ArchFamily::Blackwell;
    switch (capability) {
    case ArchCapability::View:
        if (blackwell)
            return {true, ArchEvidence::Table,
                    archName +
                        " decodes with nvdisasm 12.8 or newer (sm_103/110/121 need 13.1); control bits "
                        "have the Hopper layout"};
        return {true, ArchEvidence::Measured, archName + " decodes with the pinned nvdisasm"};
    case ArchCapability::Estimate:
        if (blackwell)
            return {true, ArchEvidence::Table,
                    archName +
                        ": latencies from a NAK-derived table, labelled as a table, not a measurement"};
        if (family == ArchFamily::Hopper)
            return {true, ArchEvidence::Measured, archName + ": latencies measured on an H100/H200"};
        return {true, ArchEvidence::Table, archName + ": latencies from the sm_80-family table"};
    case ArchCapability::Edit:
        if (blackwell) return {false, ArchEvidence::None, blackwellEditRefusal(archName)};
        if (family == ArchFamily::Hopper)
            return {true, ArchEvidence::Measured,
                    archName + ": latency, yield and reuse rules measured on an H100/H200"};
        return {true, ArchEvidence::Table, archName + ": ptxas' own distances and the sm_80-family table"};
    case ArchCapability::Measure:
        if (blackwell)
            return {true, ArchEvidence::None,
                    archName + ": the worker runs it on a Blackwell GPU; none has been lent, so nothing is "
                               "measured yet"};
        return {true, family == ArchFamily::Hopper ? ArchEvidence::Measured : ArchEvidence::None,
                archName + ": the worker runs it on a GPU of its architecture"};
    }
    return {};
}

std::vector<std::string> mercSections(const Cubin& cubin)
{
    std::vector<std::string> out;
    for (const ElfSection& s : cubin.sections())
        if (startsWith(s.name, ".nv.capmerc.") || startsWith(s.name, ".nv.merc.")) out.push_back(s.name);
    return out;
}

std::string editRefusal(const Cubin& cubin)
{
    const ArchDecision edit = archSupport(cubin.smVersion(), cubin.archName(), ArchCapability::Edit);
    if (!edit.allowed) return edit.reason;
    for (const std::string& name : mercSections(cubin))
        if (startsWith(name, ".nv.capmerc.text."))
            return cubin.archName() + ": " + name +
                   " holds a second form of the code that the driver may run instead of an edited .text; "
                   "edits are off";
    return {};
}

} // namespace sassx
