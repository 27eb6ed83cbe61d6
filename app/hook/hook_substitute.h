#pragma once
// The tuned kernels, run in place of the program's own without touching its files: each tuned cubin
// loaded as its own module (once per context) and its function handed out where the original's would
// be. Decisions come from inject::SubstitutionTable (match by the original image's hash and the kernel
// name; a mismatch runs the original and says why once on stderr).
#include "app/hook/hook_modules.h"
#include "core/inject/substitution_table.h"

#include <map>
#include <mutex>

namespace sassx::hook {

class Substituter
{
public:
    Substituter(inject::SubstitutionTable table, const DriverApi& api) : m_table(std::move(table)), m_api(api)
    {
    }

    bool empty() const { return m_table.empty(); }
    bool holdsImage(const std::string& sha256) const { return m_table.holdsImage(sha256); }

    // The tuned function for `symbol` of `image` in the current context, or null (run the original);
    // `ranSha256` is the cubin that will run either way.
    CUfunction function(const ImagePtr& image, const std::string& symbol, std::string& ranSha256);
    // The same as a context-less kernel (cuLibraryLoadData), the handle a CUDA 12+ runtime launch takes
    // in place of a host stub: how a runtime launch (<<<>>>, cudaLaunchKernel) runs the tuned kernel.
    CUkernel kernel(const ImagePtr& image, const std::string& symbol, std::string& ranSha256);
    // The original image of a tuned function this substituter handed out, else null: a launch of it is
    // counted and timed as its original kernel's, with the tuned cubin as the one that ran.
    ImagePtr originalOf(CUfunction tuned);

private:
    inject::SubstitutionTable m_table;
    const DriverApi& m_api;
    std::mutex m_mutex;
    std::map<std::pair<CUcontext, std::string>, CUmodule> m_modules;     // by tuned cubin hash
    std::map<std::pair<CUcontext, std::string>, CUfunction> m_functions; // by kernel key
    std::map<CUfunction, ImagePtr> m_originals;                          // tuned function -> its original
    std::map<std::string, CUlibrary> m_libraries;                        // by tuned cubin hash
    std::map<std::string, CUkernel> m_kernels;                           // by kernel key

    int deviceSm();
    // A cached handle of the tuned kernel for `key`, else the table's decision loaded by `load` (which
    // returns the driver's answer); a refusal is cached as null and said once. The caller holds m_mutex.
    template <class Handle, class Key, class Load>
    Handle resolve(std::map<Key, Handle>& cache, const Key& key, const ImagePtr& image,
                   const std::string& symbol, std::string& ranSha256, Load load);
    void flushMessages();
};

} // namespace sassx::hook
