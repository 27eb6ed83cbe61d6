#pragma once
// Every module the program loads, as CUPTI hands it over (the cubin the driver chose), with where it
// came from, and the ways back from a launch to it: the CUmodule or CUlibrary the program got for it,
// else the kernel's name with its registers and shared memory when several images hold that name.
#include "app/hook/hook_api.h"
#include "core/cubin/cubin.h"
#include "core/inject/module_origin.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sassx::hook {

struct LoadedImage
{
    std::string sha256;
    std::vector<uint8_t> bytes;
    std::shared_ptr<const Cubin> cubin; // null when it does not parse (then `problem`)
    std::string problem;
    inject::ModuleOrigin origin;
    std::string closedLibrary; // NVIDIA's closed-source library it belongs to, else ""
};

using ImagePtr = std::shared_ptr<const LoadedImage>;

class ModuleRegistry
{
public:
    // A module CUPTI reported loaded; `origin` as the caller worked it out (a closed-source library's file,
    // as the image's home or its loader, makes it that library's).
    ImagePtr add(const uint8_t* data, size_t size, inject::ModuleOrigin origin);
    void bindModule(CUmodule module, const ImagePtr& image);
    void bindLibrary(CUlibrary library, const ImagePtr& image);
    ImagePtr ofModule(CUmodule module) const;
    ImagePtr ofLibrary(CUlibrary library) const;
    ImagePtr bySha(const std::string& sha256) const;

    // The image a launched function came from: through its module when the program's load was seen,
    // else the one image holding a kernel of that name (with the function's registers and static shared
    // memory when several do). Null with `why` when it cannot be told.
    ImagePtr ofFunction(const DriverApi& api, CUfunction f, const std::string& name, std::string& why);

    std::vector<ImagePtr> all() const;

private:
    mutable std::mutex m_mutex;
    std::vector<ImagePtr> m_images;
    std::map<std::string, ImagePtr> m_bySha;
    std::map<CUmodule, ImagePtr> m_byModule;
    std::map<CUlibrary, ImagePtr> m_byLibrary;
};

// Where an image in memory came from: the shared library whose mapping holds `address`, else a JIT
// image (heap). Closed-source NVIDIA libraries are named by inject::closedSourceLibrary.
inject::ModuleOrigin originOf(const void* address);

// The shared library of the code that called into the driver (the calling stack's first frame outside
// the driver, CUPTI, the hook and the C/C++ runtimes), "" when none is found.
std::string callingLibrary();

} // namespace sassx::hook
