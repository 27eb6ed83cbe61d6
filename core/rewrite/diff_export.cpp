#include "core/rewrite/diff_export.h"

#include "core/common/text_format.h"
#include "core/sass/control_text.h"

#include <cstdio>
#include <sstream>

namespace sassx {

namespace {

std::string off(uint32_t pos)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04x", pos * 16);
    return buf;
}

// The note a row gets when its reuse flags stay in the word under Y0: nvdisasm prints no `.reuse`
// marks there, so the instruction text alone would hide them.
std::string keptReuseNote(const Control& c)
{
    if (!(c.reuse & 7) || (c.yield & 1)) return {};
    return "reuse " + controlFieldTexts(c).reuse + " kept under Y0, not printed by nvdisasm";
}

std::string changesText(const DiffEntry& e, const Control& b)
{
    std::string s;
    for (const auto& c : e.control)
        s += (s.empty() ? "" : " ") + c.text();
    if (!s.empty())
        if (std::string note = keptReuseNote(b); !note.empty()) s += "; " + note;
    return s;
}

std::string controlHtml(const Control& c, const std::vector<FieldChange>& changed)
{
    auto isChanged = [&](const char* f) {
        for (const auto& x : changed)
            if (x.field == f) return true;
        return false;
    };
    auto cell = [&](const char* f, const std::string& v) {
        return std::string("<span class=\"f") + (isChanged(f) ? " chg" : "") + "\">" + v + "</span>";
    };
    const ControlFieldTexts t = controlFieldTexts(c);
    std::string s;
    s += cell("stall", t.stall);
    s += cell("yield", t.yield);
    s += cell("wbar", t.wbar);
    s += cell("rbar", t.rbar);
    s += cell("wait", t.wait);
    s += cell("reuse", t.reuse);
    return s;
}

} // namespace

std::string diffToText(const ScheduleDiff& d, const TextDiffOptions& options)
{
    std::ostringstream out;
    out << "--- " << d.aLabel << " (" << d.kernel << ")\n";
    out << "+++ " << d.bLabel << " (" << d.kernel << ")\n";
    out << "# " << d.entries.size() << " instructions, " << d.movedCount() << " moved, " << d.shiftedCount()
        << " at a new offset, " << d.controlChangedCount() << " with control changes\n";
    const size_t n = d.entries.size();
    std::vector<bool> changed(n), show(n);
    for (size_t p = 0; p < n; ++p)
        changed[p] = d.entries[p].moved || !d.entries[p].control.empty();
    for (size_t p = 0; p < n; ++p) {
        if (options.context < 0) {
            show[p] = true;
            continue;
        }
        if (!changed[p]) continue;
        const size_t lo = p >= size_t(options.context) ? p - options.context : 0;
        for (size_t q = lo; q < n && q <= p + options.context; ++q)
            show[q] = true;
    }
    for (size_t p = 0; p < n;) {
        if (!show[p]) {
            ++p;
            continue;
        }
        size_t end = p;
        while (end < n && show[end])
            ++end;
        out << "@@ 0x" << off(uint32_t(p)) << "..0x" << off(uint32_t(end - 1)) << " @@\n";
        for (; p < end; ++p) {
            const DiffEntry& e = d.entries[p];
            const char mark = e.moved ? '>' : !e.control.empty() ? '~' : ' ';
            std::string from = e.aPos != e.bPos ? "<" + off(e.aPos) : "     ";
            std::string line =
                std::string(1, mark) + " " + off(uint32_t(p)) + " " + from + "  " + d.b.rows[p].text;
            const std::string ch = changesText(e, d.b.rows[p].control);
            if (!ch.empty()) {
                if (line.size() < 72) line.resize(72, ' ');
                line += "  [" + ch + "]";
            }
            out << line << "\n";
        }
    }
    return out.str();
}

nlohmann::json diffToJson(const ScheduleDiff& d)
{
    nlohmann::json entries = nlohmann::json::array();
    for (const DiffEntry& e : d.entries) {
        nlohmann::json j{
            {"text", d.b.rows[e.bPos].text}, {"from", e.aPos}, {"to", e.bPos}, {"moved", e.moved}};
        if (!e.control.empty()) {
            nlohmann::json c = nlohmann::json::object();
            for (const auto& f : e.control)
                c[f.field] = {{"from", f.from}, {"to", f.to}};
            j["control"] = c;
        }
        if (!keptReuseNote(d.b.rows[e.bPos].control).empty()) j["reuse_kept_under_y0"] = true;
        entries.push_back(std::move(j));
    }
    return {{"kernel", d.kernel},
            {"a", d.aLabel},
            {"b", d.bLabel},
            {"instructions", d.entries.size()},
            {"moved", d.movedCount()},
            {"shifted", d.shiftedCount()},
            {"controlChanged", d.controlChangedCount()},
            {"entries", entries}};
}

std::string diffToHtml(const ScheduleDiff& d)
{
    std::ostringstream h;
    h << R"(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>sassx diff: )"
      << htmlEscape(d.kernel) << R"(</title>
<style>
body{font:13px/1.35 ui-monospace,Menlo,Consolas,monospace;margin:0;background:#fafafa;color:#222}
header{padding:8px 14px;background:#263238;color:#eceff1}
header b{color:#ffcc80}
#wrap{position:relative;display:flex;gap:120px;padding:10px 14px}
.col{flex:1;min-width:0}
.col h2{font-size:13px;margin:0 0 6px 0}
.row{white-space:pre;padding:0 4px;border-left:3px solid transparent;cursor:pointer}
.row.moved{background:#fff3e0;border-left-color:#fb8c00}
.row.ctl{background:#e3f2fd}
.row.sel{outline:2px solid #d81b60}
.off{color:#90a4ae;margin-right:8px}
.f{margin-left:4px;color:#78909c}
.f.chg{color:#fff;background:#d81b60;border-radius:2px;padding:0 2px}
svg{position:absolute;left:0;top:0;pointer-events:none;overflow:visible}
svg path{fill:none;stroke:#fb8c00;stroke-width:1.4;opacity:.75}
svg path.sel{stroke:#d81b60;stroke-width:2.4;opacity:1}
</style></head><body>
<header>sassx diff of <b>)"
      << htmlEscape(d.kernel) << "</b>: " << d.entries.size() << " instructions, " << d.movedCount()
      << " moved, " << d.shiftedCount() << " at a new offset, " << d.controlChangedCount()
      << " with control changes. Click a line to find its partner.</header>\n"
      << "<div id=\"wrap\"><svg id=\"links\"></svg>\n";
    // Per A position: its entry (for highlighting the same instruction on both sides).
    std::vector<const DiffEntry*> byA(d.entries.size());
    for (const auto& e : d.entries)
        byA[e.aPos] = &e;
    auto column = [&](bool sideA) {
        h << "<div class=\"col\"><h2>" << htmlEscape(sideA ? d.aLabel : d.bLabel) << "</h2>\n";
        for (uint32_t p = 0; p < d.entries.size(); ++p) {
            const DiffEntry& e = sideA ? *byA[p] : d.entries[p];
            const auto& row = sideA ? d.a.rows[p] : d.b.rows[p];
            std::string cls = "row";
            if (e.moved) cls += " moved";
            if (!e.control.empty()) cls += " ctl";
            h << "<div class=\"" << cls << "\" id=\"" << (sideA ? 'a' : 'b') << p << "\" data-pair=\""
              << (sideA ? 'b' : 'a') << (sideA ? e.bPos : e.aPos) << "\"><a name=\"" << (sideA ? 'a' : 'b')
              << p << "\"></a><span class=\"off\">" << off(p) << "</span>" << htmlEscape(row.text)
              << controlHtml(row.control, e.control);
            if (const std::string note = keptReuseNote(row.control); !note.empty())
                h << "<span class=\"f\" title=\"" << htmlEscape(note) << "\">reuse kept under Y0</span>";
            h << "</div>\n";
        }
        h << "</div>\n";
    };
    column(true);
    column(false);
    h << "</div>\n<script>\nconst moved=[";
    bool first = true;
    for (const auto& e : d.entries)
        if (e.moved) h << (first ? "" : ",") << "[" << e.aPos << "," << e.bPos << "]", first = false;
    h << R"(];
function draw(){
  const svg=document.getElementById('links'),wrap=document.getElementById('wrap').getBoundingClientRect();
  svg.setAttribute('width',wrap.width);svg.setAttribute('height',wrap.height);svg.innerHTML='';
  for(const [a,b] of moved){
    const ra=document.getElementById('a'+a).getBoundingClientRect(),rb=document.getElementById('b'+b).getBoundingClientRect();
    const x1=ra.right-wrap.left,y1=ra.top+ra.height/2-wrap.top,x2=rb.left-wrap.left,y2=rb.top+rb.height/2-wrap.top;
    const p=document.createElementNS('http://www.w3.org/2000/svg','path');
    p.setAttribute('d',`M${x1},${y1} C${x1+50},${y1} ${x2-50},${y2} ${x2},${y2}`);p.id='l'+a;svg.appendChild(p);
  }
}
document.querySelectorAll('.row').forEach(r=>r.addEventListener('click',()=>{
  document.querySelectorAll('.sel').forEach(s=>s.classList.remove('sel'));
  const o=document.getElementById(r.dataset.pair);r.classList.add('sel');o.classList.add('sel');
  const a=r.id[0]=='a'?r.id.slice(1):o.id.slice(1),l=document.getElementById('l'+a);if(l)l.classList.add('sel');
  o.scrollIntoView({block:'nearest'});
}));
window.addEventListener('load',draw);window.addEventListener('resize',draw);
</script></body></html>
)";
    return h.str();
}

} // namespace sassx
