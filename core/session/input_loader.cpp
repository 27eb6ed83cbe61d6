#include "core/session/input_loader.h"

#include "core/common/read_file.h"

#include "core/rewrite/triton_cache.h"

#include "core/common/subprocess.h"
#include "core/common/temp_file.h"
#include "core/cubin/fatbin.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

namespace sassx {
namespace fs = std::filesystem;

namespace {

Result<std::vector<uint8_t>> readFile(const fs::path& path)
{
    return readRegularFile(path.string());
}

std::string lower(std::string s)
{
    for (auto& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

Result<LoadedInput> fromBytes(const std::string& path, std::vector<uint8_t> bytes, const std::string& origin)
{
    LoadedInput in;
    in.path = path;
    if (looksLikeCubin(bytes)) {
        auto c = Cubin::parse(std::move(bytes));
        if (!c) return makeError(path + ": " + c.message());
        in.kind = InputKind::Cubin;
        in.cubins.push_back({origin, std::move(*c)});
        return in;
    }
    auto extracted = extractCubins(bytes);
    if (!extracted) return makeError(path + ": " + extracted.message());
    in.kind = InputKind::Fatbin;
    if (bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E') in.kind = InputKind::HostBinary;
    for (auto& e : *extracted) {
        auto c = Cubin::parse(std::move(e.bytes));
        if (!c) return makeError(path + " (" + e.origin + "): " + c.message());
        in.cubins.push_back({e.origin, std::move(*c)});
    }
    if (in.cubins.empty()) return makeError(path + ": no cubin inside (only PTX, or not a CUDA binary)");
    return in;
}

std::string trimmed(std::string_view s)
{
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return std::string(s.substr(first, s.find_last_not_of(" \t\r\n") + 1 - first));
}

// Runs a compiler to completion; its stdout and stderr together are the failure message.
Result<std::string> runTool(const std::string& tool, const std::vector<std::string>& args, int timeoutMs)
{
    Subprocess::Options options;
    options.argv.push_back(tool);
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.mergeStderr = true;
    auto run = runProcess(options, std::chrono::milliseconds(timeoutMs));
    if (!run) return makeError("cannot start " + tool + ": " + run.message());
    if (run->exit.timedOut())
        return makeError(tool + " timed out after " + std::to_string(timeoutMs / 1000) + " s");
    std::string out = trimmed(run->out);
    if (!run->ok())
        return makeError(fs::path(tool).filename().string() + " failed (" + run->exit.text() + "): " + out);
    return out;
}

} // namespace

Result<std::string> findCudaTool(const std::string& name)
{
    std::vector<std::string> tried;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
        fs::path p = fs::path(home) / "bin" / name;
        tried.push_back(p.string());
        if (fs::exists(p)) return p.string();
    }
    const fs::path onPath = findExecutable(name);
    tried.push_back("PATH");
    if (!onPath.empty()) return onPath.string();
    fs::path def = fs::path("/usr/local/cuda/bin") / name;
    tried.push_back(def.string());
    if (fs::exists(def)) return def.string();
    std::string msg = name + " not found; tried:";
    for (const auto& t : tried)
        msg += " " + t;
    return makeError(msg);
}

InputTarget classifyInput(const std::string& path)
{
    InputTarget t{path};
    std::error_code ec;
    if (auto entry = tritonEntryOfFile(path)) {
        t.path = entry->string();
        t.tritonEntry = true;
    } else if (fs::is_directory(path, ec)) {
        t.tritonEntry = true;
    }
    const std::string ext = lower(fs::path(path).extension().string());
    t.needsArch = !t.tritonEntry && (ext == ".cu" || ext == ".ptx");
    if (!t.tritonEntry && fs::is_regular_file(path, ec)) {
        // By content, not by name: every SQLite 3 file begins with this string (sqlite.org/fileformat.html).
        static constexpr char kMagic[] = "SQLite format 3";
        char head[sizeof kMagic] = {};
        std::ifstream in(path, std::ios::binary);
        t.sqliteDatabase = in.read(head, sizeof head) && std::equal(head, head + sizeof head, kMagic);
    }
    return t;
}

Result<LoadedInput> loadInput(const std::string& path, const LoadOptions& options)
{
    std::error_code ec;
    if (!fs::exists(path, ec)) return makeError(path + ": no such file or directory");
    // A FIFO, socket or device is refused before anything opens it (opening a FIFO blocks).
    if (const std::string why = irregularFileReason(path); !why.empty() && !fs::is_directory(path, ec))
        return makeError(path + ": " + why);
    if (fs::is_directory(path, ec)) {
        // Triton cache entry: <hash>/<kernel>.cubin beside <kernel>.json metadata.
        std::vector<fs::path> cubins;
        for (const auto& e : fs::directory_iterator(path, ec))
            if (e.path().extension() == ".cubin") cubins.push_back(e.path());
        if (cubins.empty()) return makeError(path + ": directory holds no .cubin (not a Triton cache entry)");
        std::sort(cubins.begin(), cubins.end());
        auto bytes = readFile(cubins.front());
        if (!bytes) return bytes.error();
        auto in = fromBytes(path, std::move(*bytes), cubins.front().filename().string());
        if (!in) return in;
        in->kind = InputKind::TritonCache;
        fs::path meta = cubins.front();
        meta.replace_extension(".json");
        if (fs::exists(meta, ec)) in->tritonMetadataPath = meta.string();
        return in;
    }
    std::string ext = lower(fs::path(path).extension().string());
    if (ext == ".cu" || ext == ".ptx") {
        auto tool = findCudaTool(ext == ".cu" ? "nvcc" : "ptxas");
        if (!tool) return tool.error();
        auto dir = TempDir::create("sassx-");
        if (!dir) return dir.error();
        const fs::path out = dir->path() / "out.cubin";
        std::vector<std::string> args;
        if (ext == ".cu") args = {"-cubin", "-O3"};
        args.insert(args.end(), {"-arch=" + options.arch, "-o", out.string()});
        args.insert(args.end(), options.extraCompilerArgs.begin(), options.extraCompilerArgs.end());
        args.push_back(path);
        auto r = runTool(*tool, args, options.compileTimeoutMs);
        if (!r) return r.error();
        auto bytes = readFile(out);
        if (!bytes) return bytes.error();
        std::string origin = fs::path(*tool).filename().string() + " -arch=" + options.arch + " " +
                             fs::path(path).filename().string();
        auto in = fromBytes(path, std::move(*bytes), origin);
        if (in) in->kind = ext == ".cu" ? InputKind::Cuda : InputKind::Ptx;
        return in;
    }
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    if (bytes->empty()) return makeError(path + ": empty file");
    return fromBytes(path, std::move(*bytes), fs::path(path).filename().string());
}

} // namespace sassx
