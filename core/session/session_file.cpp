#include "core/session/session_file.h"

#include "core/analysis/arch_model.h"
#include "core/common/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace sassx {

using nlohmann::json;

json figuresToJson(const VariantFigures& f)
{
    // eval's own encoding, so a report and the session agree on field names.
    json j = eval::toJson(f.result);
    j["when"] = f.when;
    return j;
}

Result<VariantFigures> figuresFromJson(const json& j)
{
    if (!j.is_object()) return makeError("figures are not a JSON object");
    VariantFigures f;
    auto& r = f.result;
    r.source = eval::figureSourceFromJson(j.value("source", json()));
    if (!r.source.kind) return makeError("figures carry no source: refusing to show unlabelled numbers");
    // No check ran when the file says so, when "correct" is null, and for an estimate (files that stored
    // an estimate's "not refuted" as true): then `correct` means not refuted, as the estimate sets it.
    const json check = j.value("output_check", json());
    const bool notRun = (check.is_string() && check.get<std::string>() == "not run") ||
                        j.value("correct", json()).is_null() || r.source.isEstimate();
    r.outputCheck = notRun ? eval::OutputCheck::NotRun : eval::OutputCheck::Compared;
    r.correct = notRun ? j.value("failure_kind", std::string()).empty() : j.value("correct", false);
    r.failureKind = j.value("failure_kind", std::string());
    r.failure = j.value("failure", std::string());
    r.wallMs = j.value("wall_ms", 0.0);
    r.worker = j.value("worker", -1);
    if (j.contains("timing")) r.timing = eval::timingFromJson(j.at("timing"));
    if (j.contains("metrics") && j.at("metrics").is_array())
        for (const json& m : j.at("metrics")) {
            eval::MetricValue v;
            v.name = m.value("name", std::string());
            v.value = m.value("value", 0.0);
            v.unit = m.value("unit", std::string());
            v.source = eval::figureSourceFromJson(m.value("source", json()), r.source);
            r.metrics.push_back(v);
        }
    f.when = j.value("when", std::string());
    return f;
}

namespace {

// A kept search's history is also its run's checkpoint (search_state_writer.h): the session names that
// file instead of holding a second copy, since a long run's history is megabytes. Only this name is
// accepted where a session file says where the history is.
constexpr const char* kCheckpointFile = "checkpoint.json";

bool historyInOutputs(const SearchRecord& r)
{
    std::error_code ec;
    return !r.outDir.empty() && !r.history.empty() &&
           std::filesystem::is_regular_file(std::filesystem::path(r.outDir) / kCheckpointFile, ec);
}

json searchToJson(const SearchRecord& r)
{
    json js = toJson(r);
    if (historyInOutputs(r)) {
        js.erase("history");
        js["history_from"] = kCheckpointFile;
        js["history_size"] = r.history.size();
    }
    return js;
}

// The first `size` evaluations of the checkpoint in `outDir`, or why they cannot be read.
Result<json> historyFromOutputs(const std::string& outDir, size_t size)
{
    const std::string path = (std::filesystem::path(outDir) / kCheckpointFile).string();
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("cannot read " + path + ": " + std::strerror(errno));
    json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.value("history", json()).is_array())
        return makeError(path + " holds no history");
    json& history = j.at("history");
    if (history.size() < size)
        return makeError(path + " holds " + std::to_string(history.size()) + " evaluations, not " +
                         std::to_string(size));
    history.erase(history.begin() + std::ptrdiff_t(size), history.end());
    return std::move(history);
}

Result<SearchRecord> searchFromJson(const json& js, std::vector<std::string>& notes)
{
    if (!js.is_object() || !js.contains("history_from") || js.contains("history"))
        return searchRecordFromJson(js);
    if (js.at("history_from") != kCheckpointFile || !js.value("history_size", json()).is_number_unsigned())
        return makeError("a search record's \"history_from\" is not {\"checkpoint.json\", history_size}");
    json whole = js;
    auto history =
        historyFromOutputs(js.value("out_dir", std::string()), js.at("history_size").get<size_t>());
    whole["history"] = history ? std::move(*history) : json::array();
    auto r = searchRecordFromJson(whole);
    if (r && !history)
        notes.push_back("search " + r->label() +
                        ": its plot is empty, its evaluations were in its outputs: " + history.message());
    return r;
}

} // namespace

json toJson(const SessionFile& file)
{
    json variants = json::array();
    for (const VariantRecord& v : file.variants) {
        Variant asVariant{v.name, file.kernel, v.edits};
        json jv = asVariant.toJson();
        jv["id"] = v.id;
        jv["parent"] = v.parent;
        if (v.figures) jv["figures"] = figuresToJson(*v.figures);
        if (v.stalls) jv["stalls"] = eval::toJson(*v.stalls);
        if (v.imported) jv["imported"] = {{"path", v.imported->path}, {"refusals", v.imported->refusals}};
        variants.push_back(jv);
    }
    json searches = json::array();
    for (const SearchRecord& r : file.searches)
        searches.push_back(searchToJson(r));
    json folders = json::array();
    for (const SourceFolder& f : file.sourceFolders)
        folders.push_back({{"from", f.from}, {"to", f.to}});
    return {{"format", "sassx-session"},
            {"version", SessionFile::kVersion},
            {"input", file.input},
            {"arch", file.arch},
            {"kernel", file.kernel},
            {"launch_spec", file.launchSpec},
            {"current_variant", file.currentVariant},
            {"selected", file.selected},
            {"variants", variants},
            {"searches", searches},
            {"source_folders", folders}};
}

Result<SessionFile> sessionFileFromJson(const json& j)
{
    if (!j.is_object() || j.value("format", std::string()) != "sassx-session")
        return makeError("not a sassx session file (no \"format\": \"sassx-session\")");
    if (j.value("version", 0) > SessionFile::kVersion)
        return makeError("session file version " + std::to_string(j.value("version", 0)) +
                         " is newer than this sassx understands (" + std::to_string(SessionFile::kVersion) +
                         ")");
    SessionFile f;
    f.input = j.value("input", std::string());
    f.arch = j.value("arch", std::string(kDefaultArch));
    f.kernel = j.value("kernel", std::string());
    f.launchSpec = j.value("launch_spec", std::string());
    f.currentVariant = j.value("current_variant", 0);
    f.selected = j.value("selected", -1);
    if (f.input.empty()) return makeError("session file names no input");
    // Optional: files from before source folders have none.
    for (const json& jf : j.value("source_folders", json::array())) {
        if (!jf.is_object() || !jf.value("from", json()).is_string() || !jf.value("to", json()).is_string())
            return makeError("session file: a \"source_folders\" entry is not {from, to}");
        f.sourceFolders.push_back({jf.at("from").get<std::string>(), jf.at("to").get<std::string>()});
    }
    if (!j.contains("variants") || !j.at("variants").is_array())
        return makeError("session file has no variants array");
    for (const json& jv : j.at("variants")) {
        auto v = Variant::fromJson(jv);
        if (!v) return v.error();
        VariantRecord r;
        r.id = jv.value("id", -1);
        r.parent = jv.value("parent", -1);
        r.name = v->name;
        r.edits = v->edits;
        if (r.id < 0) return makeError("variant '" + r.name + "' has no id");
        if (jv.contains("figures")) {
            auto fig = figuresFromJson(jv.at("figures"));
            if (!fig) return makeError("variant '" + r.name + "': " + fig.message());
            r.figures = std::move(*fig);
        }
        if (jv.contains("stalls")) {
            auto stalls = eval::stallProfileFromJson(jv.at("stalls"));
            if (!stalls) return makeError("variant '" + r.name + "': " + stalls.message());
            r.stalls = std::move(*stalls);
        }
        // Optional: files from before imports (and every variant made here) have none.
        if (jv.contains("imported")) {
            const json& ji = jv.at("imported");
            if (!ji.is_object() || !ji.value("path", json()).is_string() ||
                !ji.value("refusals", json::array()).is_array())
                return makeError("variant '" + r.name + "': \"imported\" is not {path, refusals}");
            VariantImport imported;
            imported.path = ji.at("path").get<std::string>();
            for (const json& line : ji.value("refusals", json::array())) {
                if (!line.is_string())
                    return makeError("variant '" + r.name + "': a refusal is not a string");
                imported.refusals.push_back(line.get<std::string>());
            }
            r.imported = std::move(imported);
        }
        f.variants.push_back(std::move(r));
    }
    // Files written before searches were kept have no "searches": they load with none.
    if (j.contains("searches")) {
        if (!j.at("searches").is_array()) return makeError("session file's \"searches\" is not an array");
        for (const json& js : j.at("searches")) {
            auto r = searchFromJson(js, f.notes);
            if (!r) return r.error();
            f.searches.push_back(std::move(*r));
        }
    }
    return f;
}

Status writeSessionFile(const std::string& path, const SessionFile& file)
{
    // Temp file beside the target + fsync + rename: a crash while saving leaves the old session whole.
    return writeFileAtomically(path, toJson(file).dump(2) + "\n");
}

Result<SessionFile> readSessionFile(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return makeError("cannot read " + path + ": it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("cannot read " + path + ": " + std::strerror(errno));
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json j = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return makeError(path + " is not valid JSON");
    auto f = sessionFileFromJson(j);
    if (!f) return makeError(path + ": " + f.message());
    return f;
}

} // namespace sassx
