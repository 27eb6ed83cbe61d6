#include "app/hook/hook_substitute.h"

#include "app/hook/hook_ledger.h"

#include <cstdio>

namespace sassx::hook {

int Substituter::deviceSm()
{
    CUdevice dev = 0;
    int major = 0, minor = 0;
    if (m_api.ctxGetDevice(&dev) != CUDA_SUCCESS ||
        m_api.deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        m_api.deviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
        return 0;
    return major * 10 + minor;
}

void Substituter::flushMessages()
{
    for (const std::string& m : m_table.takeMessages())
        std::fprintf(stderr, "%s\n", m.c_str());
}

ImagePtr Substituter::originalOf(CUfunction tuned)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_originals.find(tuned);
    return it == m_originals.end() ? nullptr : it->second;
}

template <class Handle, class Key, class Load>
Handle Substituter::resolve(std::map<Key, Handle>& cache, const Key& key, const ImagePtr& image,
                            const std::string& symbol, std::string& ranSha256, Load load)
{
    if (auto it = cache.find(key); it != cache.end()) {
        if (it->second) ranSha256 = m_table.decide(image->sha256, image->bytes, symbol, 0).cubinSha256;
        return it->second;
    }
    const inject::Substitution s = m_table.decide(image->sha256, image->bytes, symbol, deviceSm());
    Handle handle = nullptr;
    if (s.cubin) {
        if (const CUresult rc = load(s, handle); rc != CUDA_SUCCESS) {
            handle = nullptr;
            std::fprintf(stderr,
                         "sassx: %s runs its original: the driver refused the tuned cubin (CUresult %d)\n",
                         symbol.c_str(), int(rc));
        } else {
            ranSha256 = s.cubinSha256;
        }
    }
    cache[key] = handle;
    flushMessages();
    return handle;
}

CUfunction Substituter::function(const ImagePtr& image, const std::string& symbol, std::string& ranSha256)
{
    ranSha256 = image->sha256;
    if (!m_table.holdsImage(image->sha256)) return nullptr;
    CUcontext ctx = nullptr;
    m_api.ctxGetCurrent(&ctx);
    std::lock_guard lock(m_mutex);
    return resolve(m_functions, std::make_pair(ctx, kernelKey(image->sha256, symbol)), image, symbol,
                   ranSha256, [&](const inject::Substitution& s, CUfunction& f) {
                       CUmodule& module = m_modules[{ctx, s.cubinSha256}];
                       CUresult rc = module ? CUDA_SUCCESS : m_api.moduleLoadData(&module, s.cubin->data());
                       if (rc == CUDA_SUCCESS) rc = m_api.moduleGetFunction(&f, module, symbol.c_str());
                       if (rc == CUDA_SUCCESS) m_originals[f] = image;
                       return rc;
                   });
}

CUkernel Substituter::kernel(const ImagePtr& image, const std::string& symbol, std::string& ranSha256)
{
    ranSha256 = image->sha256;
    if (!m_table.holdsImage(image->sha256) || !m_api.libraryLoadData || !m_api.libraryGetKernel)
        return nullptr;
    std::lock_guard lock(m_mutex);
    return resolve(m_kernels, kernelKey(image->sha256, symbol), image, symbol, ranSha256,
                   [&](const inject::Substitution& s, CUkernel& k) {
                       CUlibrary& library = m_libraries[s.cubinSha256];
                       CUresult rc = library ? CUDA_SUCCESS
                                             : m_api.libraryLoadData(&library, s.cubin->data(), nullptr,
                                                                     nullptr, 0, nullptr, nullptr, 0);
                       if (rc == CUDA_SUCCESS) rc = m_api.libraryGetKernel(&k, library, symbol.c_str());
                       return rc;
                   });
}

} // namespace sassx::hook
