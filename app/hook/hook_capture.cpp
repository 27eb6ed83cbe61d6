#include "app/hook/hook_capture.h"

#include "core/eval/sha256.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace sassx::hook {

namespace fs = std::filesystem;

namespace {

bool writeZlib(const fs::path& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream out(path, std::ios::binary);
    z_stream z{};
    if (!out || deflateInit(&z, 1) != Z_OK) return false; // level 1: captures copy gigabytes
    std::vector<uint8_t> chunk(1 << 20);
    size_t done = 0;
    int rc = Z_OK;
    do {
        const size_t take = std::min<size_t>(bytes.size() - done, 1u << 30);
        z.next_in = const_cast<Bytef*>(bytes.data() + done);
        z.avail_in = uInt(take);
        done += take;
        const int flush = done == bytes.size() ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = chunk.data();
            z.avail_out = uInt(chunk.size());
            rc = deflate(&z, flush);
            out.write(reinterpret_cast<const char*>(chunk.data()),
                      std::streamsize(chunk.size() - z.avail_out));
        } while (z.avail_out == 0);
    } while (done < bytes.size());
    deflateEnd(&z);
    return rc == Z_STREAM_END && bool(out);
}

std::string stem(const std::string& symbol, const std::string& sha)
{
    std::string s;
    for (char c : symbol.substr(0, 80))
        s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    return s + "-" + sha.substr(0, 12);
}

} // namespace

std::optional<std::vector<KernelParam>>
LaunchCapture::layout(const ImagePtr& image, const std::string& symbol, CUfunction f, std::string& why) const
{
    if (image->cubin)
        if (const Kernel* k = image->cubin->findKernel(symbol)) return k->params;
    if (m_api.funcGetParamInfo && f) { // the driver's own answer (CUDA 12.4+)
        std::vector<KernelParam> params;
        for (uint32_t i = 0;; ++i) {
            size_t offset = 0, size = 0;
            if (m_api.funcGetParamInfo(f, i, &offset, &size) != CUDA_SUCCESS) break;
            params.push_back({i, uint32_t(offset), uint32_t(size)});
        }
        return params;
    }
    why =
        "its parameter layout is unknown (the cubin does not list it and the driver is older than CUDA 12.4)";
    return std::nullopt;
}

bool LaunchCapture::copy(const inject::AllocationRange& range, std::vector<uint8_t>& out,
                         std::string& why) const
{
    try {
        out.resize(range.size);
    } catch (const std::bad_alloc&) {
        why = "the host has no room for a copy of an allocation of " + std::to_string(range.size >> 20) +
              " MiB";
        return false;
    }
    if (m_api.memcpyDtoH(out.data(), CUdeviceptr(range.base), range.size) == CUDA_SUCCESS) return true;
    why = "the driver could not copy an allocation of " + std::to_string(range.size) + " bytes to the host";
    return false;
}

std::optional<PendingCapture> LaunchCapture::before(const ImagePtr& image, const std::string& symbol,
                                                    CUfunction f, const LaunchArgs& args, std::string& skip)
{
    auto params = layout(image, symbol, f, skip);
    if (!params) return std::nullopt;
    auto query = [this](uint64_t address) -> std::optional<inject::AllocationRange> {
        CUdeviceptr base = 0;
        size_t size = 0;
        if (m_api.pointerGetAttribute(&base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CUdeviceptr(address)) !=
                CUDA_SUCCESS ||
            m_api.pointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, CUdeviceptr(address)) !=
                CUDA_SUCCESS)
            return std::nullopt;
        return inject::AllocationRange{uint64_t(base), uint64_t(size)};
    };
    Result<inject::ClassifiedLaunch> launch = makeError("the launch passed no parameter values");
    if (args.kernelParams || params->empty()) {
        std::vector<std::span<const uint8_t>> values;
        for (const KernelParam& p : *params)
            values.emplace_back(static_cast<const uint8_t*>(args.kernelParams[p.ordinal]), p.size);
        launch = inject::classifyParams(values, *params, query);
    } else if (args.extra) {
        const uint8_t* buffer = nullptr;
        size_t size = 0;
        for (void** e = args.extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
            if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const uint8_t*>(e[1]);
            if (*e == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<const size_t*>(e[1]);
        }
        if (!buffer) {
            skip = "the launch passed its parameters in an `extra` list without a buffer";
            return std::nullopt;
        }
        launch = inject::classifyParams(std::span<const uint8_t>(buffer, size), *params, query);
    }
    if (!launch) {
        skip = launch.message();
        return std::nullopt;
    }
    uint64_t total = 0;
    for (const inject::AllocationRange& r : launch->allocations)
        total += r.size;
    if (total > m_maxBytes) {
        skip = "its arguments span " + std::to_string(total >> 20) + " MiB of allocations, past the " +
               std::to_string(m_maxBytes >> 20) + " MiB a capture copies (--max-snapshot-gib)";
        return std::nullopt;
    }
    PendingCapture p{image, symbol, stem(symbol, image->sha256), std::move(*launch), args.geometry, {}};
    if (m_api.ctxSynchronize() != CUDA_SUCCESS) {
        skip = "the GPU reported an error before the launch";
        return std::nullopt;
    }
    const fs::path values = fs::path(m_dir) / (p.base + ".values");
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < p.launch.allocations.size(); ++i) {
        if (!copy(p.launch.allocations[i], bytes, skip)) return std::nullopt;
        inject::AllocationSnapshot s;
        s.beforeSha256 = eval::sha256Hex(bytes.data(), bytes.size());
        s.allZeroBefore = std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
        if (!s.allZeroBefore) {
            std::error_code ec;
            fs::create_directories(values, ec);
            s.valuesFile = p.base + ".values/" + inject::memoryName(i) + ".bin.z";
            if (!writeZlib(fs::path(m_dir) / s.valuesFile, bytes)) {
                skip = "cannot write " + (fs::path(m_dir) / s.valuesFile).string();
                return std::nullopt;
            }
        }
        p.snapshots.push_back(std::move(s));
    }
    return p;
}

std::string LaunchCapture::after(PendingCapture& p, std::string& problem)
{
    if (m_api.ctxSynchronize() != CUDA_SUCCESS) {
        problem = "the kernel's first launch failed on the GPU";
        return {};
    }
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < p.launch.allocations.size(); ++i) {
        if (!copy(p.launch.allocations[i], bytes, problem)) return {};
        p.snapshots[i].afterSha256 = eval::sha256Hex(bytes.data(), bytes.size());
    }
    const std::string cubinFile = p.image->sha256 + ".cubin";
    std::error_code ec;
    if (!fs::exists(fs::path(m_dir) / cubinFile, ec))
        std::ofstream(fs::path(m_dir) / cubinFile, std::ios::binary)
            .write(reinterpret_cast<const char*>(p.image->bytes.data()),
                   std::streamsize(p.image->bytes.size()));
    const inject::DriverKernel kernel{p.symbol,
                                      p.symbol,
                                      cubinFile,
                                      p.image->sha256,
                                      std::string(enumName(inject::kOriginKindNames, p.image->origin.kind)),
                                      p.image->origin.file};
    const std::string specFile = p.base + ".launch.json";
    std::ofstream out(fs::path(m_dir) / specFile);
    out << inject::driverLaunchSpec(kernel, p.geometry, p.launch, p.snapshots)
               .dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
    if (!out) {
        problem = "cannot write " + (fs::path(m_dir) / specFile).string();
        return {};
    }
    return specFile;
}

} // namespace sassx::hook
