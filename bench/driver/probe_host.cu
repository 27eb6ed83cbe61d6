// Launches sassx_probe_mark three ways and prints what each wrote: through the runtime (<<<>>>, the code
// embedded in this executable), through the driver with a module the program loads itself
// (cuModuleLoadData + cuModuleGetFunction + cuLaunchKernel), and through cuLaunchKernelEx with a function
// looked up before any launch, and through cuLaunchKernel with a function from cuLibraryGetKernel (no
// cuModuleGetFunction: only the launch record can carry the tuned one). Built with the static and the
// shared CUDA runtime (probe.py). Under the hook with a tuned directory, "2" says the tuned cubin ran.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" __global__ void sassx_probe_mark(int* out, int base)
{
    out[threadIdx.x] = base + 1;
}

static int readBack(int* d)
{
    int h = -1;
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    return h;
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: probe_host ORIGINAL.cubin\n");
        return 2;
    }
    int* d = nullptr;
    cudaMalloc(&d, 32 * sizeof(int));
    sassx_probe_mark<<<1, 32>>>(d, 0);
    cudaDeviceSynchronize();
    std::printf("runtime=%d\n", readBack(d));

    std::ifstream in(argv[1], std::ios::binary);
    std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CUmodule mod = nullptr;
    CUfunction f = nullptr;
    if (cuModuleLoadData(&mod, image.data()) != CUDA_SUCCESS ||
        cuModuleGetFunction(&f, mod, "sassx_probe_mark") != CUDA_SUCCESS) {
        std::printf("driver=load-failed\n");
        return 1;
    }
    int base = 0;
    CUdeviceptr dp = reinterpret_cast<CUdeviceptr>(d);
    void* params[] = {&dp, &base};
    cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
    cuCtxSynchronize();
    std::printf("driver=%d\n", readBack(d));

    base = 10;
    CUlaunchConfig config{};
    config.gridDimX = config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 32;
    config.blockDimY = config.blockDimZ = 1;
    cuLaunchKernelEx(&config, f, params, nullptr);
    cuCtxSynchronize();
    std::printf("driver_ex=%d\n", readBack(d) - 10);

    // A function that never went through cuModuleGetFunction: only the launch record can be swapped.
    CUlibrary lib = nullptr;
    CUkernel k = nullptr;
    CUfunction kf = nullptr;
    if (cuLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != CUDA_SUCCESS ||
        cuLibraryGetKernel(&k, lib, "sassx_probe_mark") != CUDA_SUCCESS ||
        cuKernelGetFunction(&kf, k) != CUDA_SUCCESS) {
        std::printf("driver_record=load-failed\n");
        return 1;
    }
    base = 20;
    cuLaunchKernel(kf, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
    cuCtxSynchronize();
    std::printf("driver_record=%d\n", readBack(d) - 20);
    return 0;
}
