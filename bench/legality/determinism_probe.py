#!/usr/bin/env python3
"""Is a sample kernel deterministic when other kernels ran before it? Runs the original cubin, then
alternates a kernel that fills shared memory (and registers' spill-free state) with NaN patterns with the
original again, comparing outputs bitwise. A kernel that reads shared memory it never wrote, or depends on
leftover state, gives different outputs: mismatches of its variants then say nothing about legality.

usage: determinism_probe.py DATA_DIR [SAMPLE ...]   (DATA_DIR as for run_variants.py)
"""
import json
import os
import sys

import cupy as cp

sys.path.insert(0, os.path.dirname(__file__))
from run_variants import device_arrays, POISON  # noqa: E402

FILL = r'''
extern "C" __global__ void fill_smem(unsigned pattern, int words) {
    extern __shared__ unsigned s[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) s[i] = pattern;
    __syncthreads();
}
'''


def run(name, data):
    spec = json.load(open(os.path.join(data, name + ".launch.json")))
    cubin = os.path.join(data, name + ".sm_90.cubin")
    grid = tuple(spec["grid"]) + (1,) * (3 - len(spec["grid"]))
    block = tuple(spec["block"]) + (1,) * (3 - len(spec["block"]))
    dyn = int(spec.get("dynamic_shared", 0))
    args, outputs = device_arrays(cp, spec, 1000)
    fn = cp.RawModule(path=cubin).get_function(spec["kernel"])
    if dyn > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = dyn
    fill = cp.RawModule(code=FILL).get_function("fill_smem")
    fill.max_dynamic_shared_size_bytes = 227 * 1024

    def launch():
        for _, buf, _ in outputs:
            buf.view(cp.uint8).fill(POISON)
        fn(grid, block, tuple(args), shared_mem=dyn)
        cp.cuda.Device().synchronize()
        return [buf.view(cp.uint8).copy() for _, buf, _ in outputs]

    ref = launch()
    same_plain = sum(all(bool((a == b).all()) for a, b in zip(ref, launch())) for _ in range(20))
    same_after_fill = 0
    patterns = [0x7FC00000, 0xFFFFFFFF, 0x00000000, 0x7F800000, 0x3F800000]
    for k in range(20):
        fill((132 * 4,), (1024,), (cp.uint32(patterns[k % len(patterns)]), cp.int32(227 * 1024 // 4)),
             shared_mem=227 * 1024)
        cp.cuda.Device().synchronize()
        same_after_fill += all(bool((a == b).all()) for a, b in zip(ref, launch()))
    print(json.dumps({"sample": name, "identical_plain_of_20": same_plain,
                      "identical_after_smem_fill_of_20": same_after_fill}), flush=True)


def main():
    data = sys.argv[1]
    names = sys.argv[2:] or sorted(f[:-len(".launch.json")] for f in os.listdir(data) if f.endswith(".launch.json"))
    print(json.dumps({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}))
    for n in names:
        run(n, data)


if __name__ == "__main__":
    main()
