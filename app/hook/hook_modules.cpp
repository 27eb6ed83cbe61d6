#include "app/hook/hook_modules.h"

#include "core/eval/sha256.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <filesystem>

namespace sassx::hook {

inject::ModuleOrigin originOf(const void* address)
{
    Dl_info info{};
    if (address && dladdr(address, &info) && info.dli_fname && *info.dli_fname)
        return {inject::OriginKind::Library, info.dli_fname};
    return {inject::OriginKind::Jit, {}};
}

std::string callingLibrary()
{
    // The first frame outside the driver, CUPTI, this hook and the C/C++ runtimes is the code that made
    // the call: a library that decompresses its own images (cuRAND, cuBLASLt) is named even though the
    // image itself lies in the heap.
    void* frames[64];
    const int n = backtrace(frames, 64);
    for (int i = 0; i < n; ++i) {
        Dl_info info{};
        if (!dladdr(frames[i], &info) || !info.dli_fname || !*info.dli_fname) continue;
        const std::string name = std::filesystem::path(info.dli_fname).filename().string();
        static constexpr const char* kSkip[] = {"libcuda.so", "libcupti",  "libsassx_hook",
                                                "libc.so",    "libc-",     "ld-linux",
                                                "libpthread", "libstdc++", "libgcc_s"};
        bool skip = false;
        for (const char* p : kSkip)
            skip = skip || name.starts_with(p);
        if (!skip) return info.dli_fname;
    }
    return {};
}

ImagePtr ModuleRegistry::add(const uint8_t* data, size_t size, inject::ModuleOrigin origin)
{
    const std::string sha = eval::sha256Hex(data, size);
    {
        std::lock_guard lock(m_mutex);
        if (auto it = m_bySha.find(sha); it != m_bySha.end()) return it->second;
    }
    auto image = std::make_shared<LoadedImage>();
    image->sha256 = sha;
    image->bytes.assign(data, data + size);
    image->origin = std::move(origin);
    if (!image->origin.file.empty())
        image->closedLibrary = inject::closedSourceLibrary(image->origin.file).value_or("");
    auto cubin = Cubin::parse(image->bytes);
    if (cubin)
        image->cubin = std::make_shared<const Cubin>(std::move(*cubin));
    else
        image->problem = cubin.message();
    std::lock_guard lock(m_mutex);
    auto [it, inserted] = m_bySha.emplace(sha, image);
    if (inserted) m_images.push_back(image);
    return it->second;
}

void ModuleRegistry::bindModule(CUmodule module, const ImagePtr& image)
{
    std::lock_guard lock(m_mutex);
    m_byModule[module] = image;
}

void ModuleRegistry::bindLibrary(CUlibrary library, const ImagePtr& image)
{
    std::lock_guard lock(m_mutex);
    m_byLibrary[library] = image;
}

ImagePtr ModuleRegistry::ofModule(CUmodule module) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_byModule.find(module);
    return it == m_byModule.end() ? nullptr : it->second;
}

ImagePtr ModuleRegistry::ofLibrary(CUlibrary library) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_byLibrary.find(library);
    return it == m_byLibrary.end() ? nullptr : it->second;
}

ImagePtr ModuleRegistry::bySha(const std::string& sha256) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_bySha.find(sha256);
    return it == m_bySha.end() ? nullptr : it->second;
}

std::vector<ImagePtr> ModuleRegistry::all() const
{
    std::lock_guard lock(m_mutex);
    return m_images;
}

ImagePtr ModuleRegistry::ofFunction(const DriverApi& api, CUfunction f, const std::string& name,
                                    std::string& why)
{
    CUmodule module = nullptr;
    if (api.funcGetModule && api.funcGetModule(&module, f) == CUDA_SUCCESS && module)
        if (ImagePtr image = ofModule(module)) return image;
    std::vector<ImagePtr> holding;
    for (const ImagePtr& image : all())
        if (image->cubin && image->cubin->findKernel(name)) holding.push_back(image);
    if (holding.size() > 1) {
        // Several loaded images hold the name (Triton's autotuning candidates, one library built for
        // several configurations): the function's own registers and static shared memory pick one.
        int regs = -1, shared = -1;
        api.funcGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
        api.funcGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
        std::vector<ImagePtr> same;
        for (const ImagePtr& image : holding) {
            const Kernel* k = image->cubin->findKernel(name);
            if (k->regCount && int(*k->regCount) == regs && int(k->sharedMemStatic) == shared)
                same.push_back(image);
        }
        holding = same;
    }
    if (holding.size() == 1) {
        if (module) bindModule(module, holding.front());
        return holding.front();
    }
    why = holding.empty()
              ? "no loaded module holds a kernel of this name (loaded before the hook, or not a cubin)"
              : std::to_string(holding.size()) +
                    " loaded modules hold a kernel of this name with the same registers and shared "
                    "memory: which one ran cannot be told";
    return nullptr;
}

} // namespace sassx::hook
