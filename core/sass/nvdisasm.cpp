#include "core/sass/nvdisasm.h"

#include "core/common/subprocess.h"
#include "core/common/temp_file.h"

#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>

namespace sassx {
namespace fs = std::filesystem;

namespace {

std::string trimmed(std::string_view s)
{
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return std::string(s.substr(first, s.find_last_not_of(" \t\r\n") + 1 - first));
}

bool isExecutable(const fs::path& p)
{
    std::error_code ec;
    auto st = fs::status(p, ec);
    return !ec && fs::is_regular_file(st) && (st.permissions() & fs::perms::owner_exec) != fs::perms::none;
}

// The nvidia-cuda-nvdisasm wheel installs bin/nvdisasm under site-packages/nvidia/cu<major>/.
std::vector<fs::path> wheelCandidates(std::vector<std::string>& tried)
{
    std::vector<fs::path> out;
    const fs::path python = findExecutable("python3");
    Subprocess::Options listSites;
    listSites.argv = {
        python.string(), "-c",
        "import site,sys\nfor p in site.getsitepackages()+[site.getusersitepackages()]: print(p)"};
    Result<ProcessOutput> py = makeError("python3 not on PATH");
    if (!python.empty()) py = runProcess(listSites, std::chrono::seconds(10));
    if (!py || !py->ok()) {
        tried.push_back("python3 site-packages (python3 not runnable)");
        return out;
    }
    std::istringstream lines(py->out);
    for (std::string line; std::getline(lines, line);) {
        const fs::path site = trimmed(line);
        if (site.empty()) continue;
        std::error_code ec;
        fs::path nv = site / "nvidia";
        if (!fs::is_directory(nv, ec)) {
            tried.push_back((nv / "cu*/bin/nvdisasm").string());
            continue;
        }
        for (const auto& entry : fs::directory_iterator(nv, ec)) {
            fs::path cand = entry.path() / "bin" / "nvdisasm";
            tried.push_back(cand.string());
            if (isExecutable(cand)) out.push_back(cand);
        }
        fs::path legacy = nv / "cuda_nvdisasm" / "bin" / "nvdisasm";
        if (isExecutable(legacy)) out.push_back(legacy);
    }
    return out;
}

} // namespace

Result<fs::path> findNvdisasm()
{
    static std::mutex mutex;
    static std::optional<fs::path> cached;
    std::lock_guard lock(mutex);
    if (cached && isExecutable(*cached)) return *cached;

    std::vector<std::string> tried;
    auto found = [&](const fs::path& p) -> Result<fs::path> {
        cached = p;
        return p;
    };
    if (const char* env = std::getenv("SASSX_NVDISASM"); env && *env) {
        tried.push_back(std::string("$SASSX_NVDISASM=") + env);
        if (isExecutable(env)) return found(env);
    } else {
        tried.push_back("$SASSX_NVDISASM (unset)");
    }
    if (const char* cuda = std::getenv("CUDA_HOME"); cuda && *cuda) {
        fs::path p = fs::path(cuda) / "bin" / "nvdisasm";
        tried.push_back(p.string());
        if (isExecutable(p)) return found(p);
    } else {
        tried.push_back("$CUDA_HOME/bin/nvdisasm (CUDA_HOME unset)");
    }
    const fs::path onPath = findExecutable("nvdisasm");
    tried.push_back("PATH");
    if (!onPath.empty()) return found(onPath);
    auto wheels = wheelCandidates(tried);
    if (!wheels.empty()) return found(wheels.back());

    std::string msg = "nvdisasm not found; tried: ";
    for (size_t i = 0; i < tried.size(); ++i)
        msg += (i ? ", " : "") + tried[i];
    msg +=
        ". Install the CUDA toolkit or `python3 -m pip install nvidia-cuda-nvdisasm`, or set SASSX_NVDISASM.";
    return makeError(msg);
}

Result<ProcessOutput> runNvdisasmOutput(const std::vector<uint8_t>& bytes,
                                        const std::vector<std::string>& args, bool mergeStderr, int timeoutMs)
{
    auto tool = findNvdisasm();
    if (!tool) return tool.error();
    auto file = TempFile::create("sassx-", ".cubin");
    if (!file) return file.error();
    if (auto written = file->writeAndClose(bytes); !written) return written.error();

    Subprocess::Options options;
    options.argv.push_back(tool->string());
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.argv.push_back(file->path().string());
    options.mergeStderr = mergeStderr;
    auto run = runProcess(options, std::chrono::milliseconds(timeoutMs));
    if (!run) return makeError("cannot start " + tool->string() + ": " + run.message());
    if (run->exit.timedOut())
        return makeError("nvdisasm did not finish within " + std::to_string(timeoutMs / 1000) + " s");
    return std::move(*run);
}

Result<std::string> runNvdisasm(const std::vector<uint8_t>& cubin, const std::vector<std::string>& args,
                                int timeoutMs)
{
    auto run = runNvdisasmOutput(cubin, args, false, timeoutMs);
    if (!run) return run.error();
    if (!run->ok()) {
        const std::string err = trimmed(run->err);
        if (err.find(" at address 0x") != std::string::npos) {
            // Undecodable code: one line that says how much and where, then the decoder's own lines
            // as details (a front end shows the first line; the GUI keeps the rest behind a button).
            // The tail of stderr holds only the last few KiB: count on a run that keeps all of it.
            auto all = runNvdisasmOutput(cubin, args, true, timeoutMs);
            const std::string& text = all ? all->out : run->err;
            int count = 0;
            std::string first, details;
            size_t from = 0, shown = 0;
            while (from < text.size()) {
                size_t nl = text.find('\n', from);
                if (nl == std::string::npos) nl = text.size();
                const std::string line = text.substr(from, nl - from);
                from = nl + 1;
                if (line.find("error") == std::string::npos) continue;
                if (shown++ < 40) details += "\n" + line;
                const size_t at = line.find(" at address 0x");
                if (at == std::string::npos) continue;
                if (count++ == 0) {
                    std::string why = line.substr(0, at);
                    if (const size_t colon = why.find(": "); colon != std::string::npos)
                        why = why.substr(colon + 2);
                    first = line.substr(at + 12) + ": " + why;
                }
            }
            return makeError("nvdisasm cannot decode " + std::to_string(count) +
                             " instruction(s), first at " + first + details);
        }
        return makeError("nvdisasm failed (" + run->exit.text() +
                         "): " + (err.empty() ? std::string("no message") : err));
    }
    return std::move(run->out);
}

} // namespace sassx
