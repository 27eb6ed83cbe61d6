#include "core/sass/nvdisasm.h"

#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryFile>

#include <cstdlib>
#include <mutex>

namespace sassx {
namespace fs = std::filesystem;

namespace {

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
    QProcess py;
    py.start("python3",
             {"-c", "import site,sys\nfor p in site.getsitepackages()+[site.getusersitepackages()]: "
                    "print(p)"});
    if (!py.waitForFinished(10000) || py.exitCode() != 0) {
        tried.push_back("python3 site-packages (python3 not runnable)");
        return out;
    }
    for (const auto& line : QString::fromUtf8(py.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
        fs::path site = line.trimmed().toStdString();
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
    QString onPath = QStandardPaths::findExecutable("nvdisasm");
    tried.push_back("PATH");
    if (!onPath.isEmpty()) return found(onPath.toStdString());
    auto wheels = wheelCandidates(tried);
    if (!wheels.empty()) return found(wheels.back());

    std::string msg = "nvdisasm not found; tried: ";
    for (size_t i = 0; i < tried.size(); ++i)
        msg += (i ? ", " : "") + tried[i];
    msg +=
        ". Install the CUDA toolkit or `python3 -m pip install nvidia-cuda-nvdisasm`, or set SASSX_NVDISASM.";
    return makeError(msg);
}

Result<std::string> runNvdisasm(const std::vector<uint8_t>& cubin, const std::vector<std::string>& args,
                                int timeoutMs)
{
    auto tool = findNvdisasm();
    if (!tool) return tool.error();
    QTemporaryFile file;
    file.setFileTemplate(QDir::tempPath() + "/sassx-XXXXXX.cubin");
    if (!file.open())
        return makeError("cannot create a temporary file for nvdisasm: " + file.errorString().toStdString());
    if (file.write(reinterpret_cast<const char*>(cubin.data()), qint64(cubin.size())) != qint64(cubin.size()))
        return makeError("cannot write the temporary cubin for nvdisasm");
    file.flush();

    QStringList qargs;
    for (const auto& a : args)
        qargs << QString::fromStdString(a);
    qargs << file.fileName();
    QProcess proc;
    proc.start(QString::fromStdString(tool->string()), qargs);
    if (!proc.waitForStarted(10000))
        return makeError("cannot start " + tool->string() + ": " + proc.errorString().toStdString());
    if (!proc.waitForFinished(timeoutMs)) {
        proc.kill();
        proc.waitForFinished(2000);
        return makeError("nvdisasm did not finish within " + std::to_string(timeoutMs / 1000) + " s");
    }
    if (proc.exitStatus() != QProcess::NormalExit || proc.exitCode() != 0) {
        std::string err = QString::fromUtf8(proc.readAllStandardError()).trimmed().toStdString();
        return makeError("nvdisasm failed (exit " + std::to_string(proc.exitCode()) +
                         "): " + (err.empty() ? std::string("no message") : err));
    }
    return QString::fromUtf8(proc.readAllStandardOutput()).toStdString();
}

} // namespace sassx
