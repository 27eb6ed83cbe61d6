#include "core/session/annotation_json.h"

#include "core/analysis/required_latency.h"
#include "core/cubin/source_map.h"
#include "core/sass/control_text.h"
#include "core/sass/instruction_text.h"
#include "core/sass/semantics.h"
#include "core/session/source_lines.h"

#include <cstdio>
#include <sstream>

namespace sassx {

std::string hex16(uint64_t v)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

namespace {

const char* kindName(Operand::Kind k)
{
    switch (k) {
    case Operand::Kind::Register:
        return "register";
    case Operand::Kind::Memory:
        return "memory";
    case Operand::Kind::Constant:
        return "constant";
    case Operand::Kind::Immediate:
        return "immediate";
    case Operand::Kind::Label:
        return "label";
    case Operand::Kind::Special:
        return "special";
    case Operand::Kind::Other:
        return "other";
    }
    return "other";
}

nlohmann::json operandJson(const Operand& op)
{
    nlohmann::json j{{"text", op.text}, {"kind", kindName(op.kind)}};
    switch (op.kind) {
    case Operand::Kind::Register:
        j["reg"] = op.reg ? op.reg->name() : (op.text.find("UR") != std::string::npos ? "URZ" : "zero");
        if (op.regWidth > 1) j["width"] = op.regWidth;
        if (op.negated) j["negated"] = true;
        if (op.absolute) j["absolute"] = true;
        if (op.reuse) j["reuse"] = true;
        break;
    case Operand::Kind::Memory:
        if (op.memBase) j["base"] = op.memBase->name() + (op.memBaseWidth == 2 ? ".64" : "");
        if (op.memUniform) j["uniform"] = op.memUniform->name();
        if (op.memDescriptor) j["descriptor"] = op.memDescriptor->name();
        j["offset"] = op.memOffset;
        break;
    case Operand::Kind::Constant:
        if (op.constBank >= 0) j["bank"] = op.constBank;
        if (op.constBankReg) j["bank_reg"] = op.constBankReg->name();
        j["offset"] = op.constOffset;
        break;
    case Operand::Kind::Immediate:
        if (op.isFloat)
            j["float"] = op.floatValue;
        else
            j["value"] = op.intValue;
        break;
    case Operand::Kind::Label:
        j["target"] = op.target;
        break;
    default:
        break;
    }
    return j;
}

nlohmann::json regNames(const RegList& l)
{
    auto a = nlohmann::json::array();
    for (const auto& r : l)
        a.push_back(r.name());
    return a;
}

std::string trimmed(std::string_view s)
{
    const size_t first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

nlohmann::json sourceJson(const SourceMap& map, const SourceLocation& at)
{
    nlohmann::json j{{"file", map.files[size_t(at.file)].path}, {"line", at.line}};
    if (at.column) j["column"] = at.column;
    if (auto text = map.sourceText(at); !text.empty()) j["text"] = std::string(text);
    if (at.callFile >= 0) {
        nlohmann::json in{{"file", map.files[size_t(at.callFile)].path}, {"line", at.callLine}};
        if (at.function >= 0) in["function"] = map.functions[size_t(at.function)];
        j["inlined_at"] = in;
    }
    return j;
}

nlohmann::json lineInfoJson(const SourceMap& map)
{
    nlohmann::json files = nlohmann::json::array();
    for (const SourceFile& f : map.files) {
        nlohmann::json fj{{"path", f.path}};
        if (!f.foundAt.empty()) fj["found_at"] = f.foundAt;
        files.push_back(fj);
    }
    return {{"source", map.hasSource}, {"ptx", map.hasPtx}, {"files", files}, {"notes", map.notes}};
}

// "        // attention.py:16  bh = tl.program_id(1)", with the call site of inlined code.
std::string sourceCommentLine(const SourceMap& map, const SourceLocation& at)
{
    std::string line =
        "        // " + (at.hasSource() ? map.describe(at, true) : std::string("(no source line)"));
    if (at.callFile >= 0) {
        line += " inlined";
        if (at.function >= 0) line += " from " + map.functions[size_t(at.function)];
        line += " at " + map.describeCallSite(at);
    }
    if (auto text = trimmed(map.sourceText(at)); !text.empty()) line += "  " + text;
    return line + "\n";
}

} // namespace

nlohmann::json instructionJson(const KernelAnalysis& a, InstrId id)
{
    const uint32_t i = id.value();
    const auto& ins = a.listing.instructions[i];
    const auto& f = a.facts[i];
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& op : ins.operands)
        ops.push_back(operandJson(op));
    nlohmann::json deps = nlohmann::json::array();
    for (uint32_t e : a.deps.incoming(i)) {
        const auto& d = a.deps.edges()[e];
        nlohmann::json dj{{"from", d.from}, {"kind", depKindName(d.kind)}, {"distance", d.distance}};
        if (d.hasReg) dj["reg"] = d.reg.name();
        if (d.scoreboard >= 0) dj["sb"] = d.scoreboard;
        // The figure the checker holds the edge to, never above ptxas' own distance (required_latency.h).
        if (const RequiredLatency r = requiredLatency(a, d); r.source != LatencySource::None) {
            dj["latency"] = r.cycles;
            dj["latency_source"] = latencySourceKey(r.source);
            if (r.tableFigure >= 0 && r.tableFigure != r.cycles) dj["table_latency"] = r.tableFigure;
        }
        deps.push_back(dj);
    }
    return {
        {"index", ins.index},
        {"offset", ins.offset},
        {"predicate", ins.predicateText},
        {"opcode", ins.opcode},
        {"operands", ops},
        {"raw", {hex16(ins.lo), hex16(ins.hi)}},
        {"control",
         {{"stall", ins.control.stall},
          {"yield", ins.control.yield},
          {"wbar", ins.control.wbar},
          {"rbar", ins.control.rbar},
          {"wait", ins.control.wait},
          {"reuse", ins.control.reuse},
          // Flags under Y0 stay in the word though nvdisasm prints no `.reuse` marks there.
          {"reuse_unprinted", (ins.control.reuse & 7) != 0 && !(ins.control.yield & 1)}}},
        {"defs", regNames(ins.defs)},
        {"uses", regNames(ins.uses)},
        {"class", instrClassName(ins.cls)},
        {"variable_latency", ins.variableLatency},
        {"opaque", ins.opaque},
        {"block", f.block},
        {"cycle", f.cycle},
        {"live_regs", f.liveGpr},
        {"wall", f.wall},
        {"deps", deps},
    };
}

nlohmann::json annotationJson(const KernelAnalysis& a, const std::string& arch, const SourceMap* source)
{
    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& b : a.cfg.blocks)
        blocks.push_back({{"index", b.index},
                          {"label", b.label},
                          {"first", b.first},
                          {"end", b.end},
                          {"successors", b.successors},
                          {"loop_depth", b.loopDepth},
                          {"loop_header", b.isLoopHeader}});
    nlohmann::json insts = nlohmann::json::array();
    for (uint32_t i = 0; i < a.listing.instructions.size(); ++i) {
        insts.push_back(instructionJson(a, InstrId(i)));
        if (!source || i >= source->byPosition.size()) continue;
        const SourceLocation& at = source->byPosition[i];
        if (at.hasSource()) insts.back()["source"] = sourceJson(*source, at);
        if (at.ptxLine) insts.back()["ptx_line"] = at.ptxLine;
    }
    nlohmann::json j{
        {"arch", arch},
        {"kernel", a.listing.kernel},
        {"latency_table", a.latencies.isEmpty() ? "none (original distances kept)" : a.latencies.arch()},
        {"blocks", blocks},
        {"instructions", insts}};
    if (source) j["line_info"] = lineInfoJson(*source);
    return j;
}

std::string annotationText(const KernelAnalysis& a, const std::string& arch, const SourceMap* source)
{
    std::ostringstream os;
    const auto& insts = a.listing.instructions;
    os << "// kernel " << a.listing.kernel << " (" << arch << "): " << insts.size() << " instructions, "
       << a.cfg.blocks.size() << " blocks\n";
    os << "// S=stall Y=yield W=write SB R=read SB wait=SB mask reuse=a/b/c  c=issue cycle in block  "
          "live=GPRs\n";
    if (source && source->empty())
        for (const std::string& note : source->notes)
            os << "// " << note << "\n";
    const bool lines = source && !source->empty();
    const SourceLocation* shown = nullptr; // the source line last printed
    char buf[64];
    for (const auto& b : a.cfg.blocks) {
        os << "\n// block " << b.index << " " << b.label << (b.isLoopHeader ? " (loop header)" : "")
           << " depth=" << b.loopDepth << " succ=[";
        for (size_t k = 0; k < b.successors.size(); ++k)
            os << (k ? "," : "") << b.successors[k];
        os << "]\n";
        for (uint32_t i = b.first; i < b.end; ++i) {
            const auto& ins = insts[i];
            const auto& c = ins.control;
            const SourceLocation* at =
                lines && i < source->byPosition.size() ? &source->byPosition[i] : nullptr;
            if (at && at->hasSource() &&
                (!shown || shown->file != at->file || shown->line != at->line ||
                 shown->callFile != at->callFile || shown->callLine != at->callLine)) {
                os << sourceCommentLine(*source, *at);
                shown = at;
            }
            std::snprintf(buf, sizeof buf, "/*%04llx*/ ", static_cast<unsigned long long>(ins.offset));
            os << buf;
            std::string text = instructionText(ins, ins.control);
            os << text;
            for (size_t pad = text.size(); pad < 48; ++pad)
                os << ' ';
            std::snprintf(buf, sizeof buf, " c=%d live=%d", a.facts[i].cycle, a.facts[i].liveGpr);
            os << ' ' << controlText(c) << buf;
            if (at && at->ptxLine) os << " ptx=" << at->ptxLine;
            if (a.facts[i].wall) os << " WALL";
            if (a.deps.unresolved()[i]) os << " PINNED(" << a.deps.unresolvedReason(i) << ")";
            bool first = true;
            for (uint32_t e : a.deps.incoming(i)) {
                const auto& d = a.deps.edges()[e];
                os << (first ? "  <- " : " ");
                first = false;
                std::snprintf(buf, sizeof buf, "%s@%04llx", depKindName(d.kind),
                              static_cast<unsigned long long>(insts[d.from].offset));
                os << buf;
                if (d.hasReg) os << ":" << d.reg.name();
                if (d.scoreboard >= 0) os << ":SB" << int(d.scoreboard);
                os << " d=" << d.distance;
                // The checker's figure: M measured on the GPU, L the latency table, P the least distance
                // ptxas left for the pair in the kernel, O ptxas' own distance for the edge.
                if (const RequiredLatency r = requiredLatency(a, d); r.source != LatencySource::None)
                    os << '/' << latencySourceMark(r.source) << r.cycles;
            }
            os << "\n";
        }
    }
    return os.str();
}

namespace {

std::string sourceLineLabel(const SourceMap& map, const SourceLineSummary& l)
{
    if (l.file < 0) return "(no source line)";
    return map.files[size_t(l.file)].name + ":" + std::to_string(l.line);
}

} // namespace

std::string sourceLinesText(const SourceMap& map, const std::vector<SourceLineSummary>& lines,
                            bool withSamples, bool withVariant)
{
    std::ostringstream os;
    if (map.empty()) {
        for (const std::string& note : map.notes)
            os << "// " << note << "\n";
        return os.str();
    }
    uint64_t total = 0;
    for (const auto& l : lines)
        total += l.samples;
    os << "// " << lines.size() << " source lines; instr = instructions";
    if (withSamples) os << ", samples = share of the stall samples";
    if (withVariant) os << ", changed = moved or other control bits in the variant";
    os << "\n";
    char buf[96];
    for (const auto& l : lines) {
        std::snprintf(buf, sizeof buf, "%-28s %5zu instr", sourceLineLabel(map, l).c_str(),
                      l.instructions.size());
        os << buf;
        if (withSamples) {
            std::snprintf(buf, sizeof buf, " %6.2f%% samples",
                          total ? 100.0 * double(l.samples) / double(total) : 0.0);
            os << buf;
        }
        if (withVariant) {
            std::snprintf(buf, sizeof buf, " %4u changed", l.changed);
            os << buf;
        }
        SourceLocation at;
        at.file = l.file;
        at.line = l.line;
        if (auto text = trimmed(map.sourceText(at)); !text.empty()) os << "  " << text;
        os << "\n";
    }
    return os.str();
}

nlohmann::json sourceLinesJson(const SourceMap& map, const std::vector<SourceLineSummary>& lines,
                               bool withSamples, bool withVariant)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& l : lines) {
        nlohmann::json j{{"instructions", l.instructions}};
        if (l.file >= 0) {
            j["file"] = map.files[size_t(l.file)].path;
            j["line"] = l.line;
            SourceLocation at;
            at.file = l.file;
            at.line = l.line;
            if (auto text = map.sourceText(at); !text.empty()) j["text"] = std::string(text);
        }
        if (withSamples) j["samples"] = l.samples;
        if (withVariant)
            j["changed"] = {{"moved", l.moved}, {"control", l.controlChanged}, {"either", l.changed}};
        out.push_back(j);
    }
    return {{"line_info", lineInfoJson(map)}, {"source_lines", out}};
}

} // namespace sassx
