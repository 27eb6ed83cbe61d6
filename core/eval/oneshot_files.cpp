#include "core/eval/oneshot_files.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace sassx::eval {

namespace fs = std::filesystem;

Result<std::unique_ptr<OneshotFiles>> OneshotFiles::create(const LaunchSpec& spec,
                                                           const std::vector<uint8_t>& cubin)
{
    char tmpl[] = "/tmp/sassx-oneshot-XXXXXX";
    if (!mkdtemp(tmpl)) return makeError("cannot create a temporary folder for the one-launch runner");
    std::unique_ptr<OneshotFiles> f(new OneshotFiles());
    f->m_dir = tmpl;
    std::ofstream specOut(f->specPath());
    specOut << toJson(spec).dump(1);
    std::ofstream cubinOut(f->cubinPath(), std::ios::binary);
    cubinOut.write(reinterpret_cast<const char*>(cubin.data()), std::streamsize(cubin.size()));
    specOut.close();
    cubinOut.close();
    if (!specOut || !cubinOut)
        return makeError("cannot write the one-launch runner's files in " + f->m_dir.string());
    return f;
}

OneshotFiles::~OneshotFiles()
{
    std::error_code ec;
    fs::remove_all(m_dir, ec);
}

std::string selfExecutable()
{
    char self[4096] = {};
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    return n > 0 ? std::string(self, size_t(n)) : std::string("sassx-worker");
}

} // namespace sassx::eval
