#include "core/sass/listing.h"

#include "core/cubin/cubin.h"
#include "core/sass/nvdisasm.h"
#include "core/sass/semantics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace sassx {
namespace {

uint64_t readLe64(const uint8_t* p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v; // cubins are little-endian like every host sassx runs on
}

void parsePredicate(const std::string& text, Instruction& ins)
{
    ins.predicateText = text;
    std::string t = text;
    if (!t.empty() && t[0] == '@') t.erase(0, 1);
    if (!t.empty() && t[0] == '!') {
        ins.guardNegated = true;
        t.erase(0, 1);
    }
    auto ops = parseOperands(t);
    if (!ops.empty() && ops[0].kind == Operand::Kind::Register && ops[0].reg) ins.guard = ops[0].reg;
}

void parseOpcode(const std::string& opcode, Instruction& ins)
{
    ins.opcode = opcode;
    size_t dot = opcode.find('.');
    ins.baseOpcode = opcode.substr(0, dot);
    // The one table lookup of this instruction: every rule after this reads ins.op and ins.opFlags.
    const OpcodeInfo info = describeOpcode(ins.baseOpcode);
    ins.op = info.op;
    ins.opFlags = info.flags;
    ins.modifiers.clear();
    while (dot != std::string::npos) {
        size_t next = opcode.find('.', dot + 1);
        ins.modifiers.push_back(
            opcode.substr(dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1));
        dot = next;
    }
}

// Before sm_90 nvdisasm does not print the memory descriptor of global accesses (`LDG.E R2, [R4.64]`),
// yet the instruction reads the uniform pair ptxas loaded from c[0x0][0x118] (docs/sass-facts.md §5). Every
// such pair in the kernel counts as read: conservative when there are several.
void addHiddenDescriptorUses(KernelListing& listing)
{
    if (listing.sm >= 90) return;
    std::vector<Reg> pairs;
    for (const auto& ins : listing.instructions)
        if (ins.op == Op::ULDC && ins.operands.size() == 2 && ins.operands[0].reg &&
            ins.operands[1].kind == Operand::Kind::Constant && ins.operands[1].constBank == 0 &&
            ins.operands[1].constOffset == 0x118)
            pairs.push_back(*ins.operands[0].reg);
    if (pairs.empty()) return;
    for (auto& ins : listing.instructions) {
        bool extended = std::find(ins.modifiers.begin(), ins.modifiers.end(), "E") != ins.modifiers.end();
        if (!extended || !(ins.isMemory() || ins.cls == InstrClass::Atomic)) continue;
        bool printed = false;
        for (const auto& op : ins.operands)
            printed = printed || op.memDescriptor.has_value();
        if (printed) continue;
        for (const auto& p : pairs) {
            ins.uses.push_back(p);
            ins.uses.push_back(Reg{p.file, uint16_t(p.index + 1)});
        }
        std::sort(ins.uses.begin(), ins.uses.end());
        ins.uses.erase(std::unique(ins.uses.begin(), ins.uses.end()), ins.uses.end());
    }
}

} // namespace

Result<std::vector<KernelListing>> listingsFromJson(const Cubin& cubin, const std::string& text)
{
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_array() || doc.size() < 2 || !doc[1].is_array())
        return makeError("nvdisasm -json output is not in the expected form [meta, [functions]]");
    std::vector<KernelListing> out;
    for (const auto& fn : doc[1]) {
        if (!fn.is_object() || !fn.contains("function-name")) continue;
        KernelListing listing;
        listing.kernel = fn.value("function-name", "");
        listing.sm = cubin.smVersion();
        const Kernel* kernel = cubin.findKernel(listing.kernel);
        if (!kernel) continue; // device functions without their own .text section
        auto code = cubin.sectionData(kernel->textSection);
        uint64_t start = fn.value("start", uint64_t(0));
        const auto& insts = fn.value("sass-instructions", nlohmann::json::array());
        if (!insts.is_array())
            return makeError("nvdisasm listing of " + listing.kernel + " has no instruction array");
        listing.instructions.reserve(insts.size());
        uint32_t n = 0;
        for (const auto& j : insts) {
            Instruction ins;
            ins.index = n;
            ins.offset = start + 16ull * n;
            if (ins.offset + 16 > code.size())
                return makeError("nvdisasm lists more instructions for " + listing.kernel +
                                 " than its .text section holds");
            ins.lo = readLe64(code.data() + ins.offset);
            ins.hi = readLe64(code.data() + ins.offset + 8);
            ins.control = Control::decode(ins.hi);
            if (j.contains("predicate") && j["predicate"].is_string())
                parsePredicate(j["predicate"].get<std::string>(), ins);
            parseOpcode(j.value("opcode", std::string("?")), ins);
            ins.operandText = j.value("operands", std::string());
            ins.operands = parseOperands(ins.operandText);
            if (auto attrs = j.find("other-attributes"); attrs != j.end() && attrs->is_object())
                ins.controlFlow = attrs->contains("control-flow");
            if (ins.op == Op::CALL && !ins.operands.empty() &&
                ins.operands.back().kind == Operand::Kind::Other) {
                // CALL.REL to a named subroutine inside this section: resolve through the symbol table.
                auto& op = ins.operands.back();
                for (const auto& sym : cubin.symbols())
                    if (sym.name == op.text && int(sym.shndx) == kernel->textSection) {
                        op.kind = Operand::Kind::Label;
                        op.target = sym.value;
                        ins.branchTarget = sym.value;
                    }
            }
            if (ins.is(kBranchTarget) && !ins.branchTarget) {
                for (auto it = ins.operands.rbegin(); it != ins.operands.rend(); ++it) {
                    if (it->kind == Operand::Kind::Immediate && !it->isFloat) {
                        it->kind = Operand::Kind::Label;
                        it->target = uint64_t(it->intValue);
                        ins.branchTarget = it->target;
                        break;
                    }
                }
            }
            applySemantics(ins, listing.sm);
            listing.instructions.push_back(std::move(ins));
            ++n;
        }
        addHiddenDescriptorUses(listing);
        out.push_back(std::move(listing));
    }
    return out;
}

Instruction makeInstruction(const std::string& text, const Control& control, int sm)
{
    Instruction ins;
    std::string t = text;
    while (!t.empty() && t.back() == ';')
        t.pop_back();
    size_t p = t.find_first_not_of(' ');
    t = p == std::string::npos ? "" : t.substr(p);
    if (!t.empty() && t[0] == '@') {
        size_t sp = t.find(' ');
        parsePredicate(t.substr(0, sp), ins);
        t = sp == std::string::npos ? "" : t.substr(sp + 1);
    }
    size_t sp = t.find(' ');
    parseOpcode(t.substr(0, sp), ins);
    ins.operandText = sp == std::string::npos ? "" : t.substr(sp + 1);
    ins.operands = parseOperands(ins.operandText);
    ins.control = control;
    ins.hi = control.encode(0);
    if (ins.is(kBranchTarget))
        for (auto it = ins.operands.rbegin(); it != ins.operands.rend(); ++it)
            if (it->kind == Operand::Kind::Immediate && !it->isFloat) {
                it->kind = Operand::Kind::Label;
                it->target = uint64_t(it->intValue);
                ins.branchTarget = it->target;
                break;
            }
    ins.controlFlow = ins.is(kControlFlow);
    applySemantics(ins, sm);
    return ins;
}

KernelListing makeListing(const std::vector<std::pair<std::string, Control>>& lines, int sm)
{
    KernelListing l;
    l.kernel = "handmade";
    l.sm = sm;
    for (const auto& [text, c] : lines) {
        Instruction ins = makeInstruction(text, c, sm);
        ins.index = uint32_t(l.instructions.size());
        ins.offset = 16ull * ins.index;
        l.instructions.push_back(std::move(ins));
    }
    addHiddenDescriptorUses(l);
    return l;
}

Result<std::vector<KernelListing>> disassemble(const Cubin& cubin)
{
    auto json = runNvdisasm(cubin.bytes(), {"-json"});
    if (!json) return json.error();
    return listingsFromJson(cubin, *json);
}

Result<KernelListing> disassembleKernel(const Cubin& cubin, const std::string& kernel)
{
    if (!cubin.findKernel(kernel)) return makeError("no kernel named '" + kernel + "' in this cubin");
    auto all = disassemble(cubin);
    if (!all) return all.error();
    for (auto& l : *all)
        if (l.kernel == kernel) return std::move(l);
    return makeError("nvdisasm printed no code for kernel '" + kernel + "'");
}

} // namespace sassx
