#!/usr/bin/env bash
# On a GPU machine (torch + triton): the capture tool end to end (docs/capture.md).
#   1. samples/triton/capture.py through the capture package: its specs must equal samples/triton/captured
#      (params, grid, block, shared memory, work figures); the recorded launch metadata is kept (the CI
#      fixtures' form: tests/app/capture/data).
#   2. bench/tune/transformer_block.py: warmed once, then captured; at least 10 Triton kernels must be
#      captured, and the program's step time is measured over fresh runs.
# Usage: bench/tune/capture_check.sh [OUT_DIR (default /tmp/capture-check)] [extra transformer_block.py args]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/capture-check}
shift || true
mkdir -p "$out"
export PYTHONPATH="$PWD/app/capture${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1

echo "== 1. Triton samples"
python3 samples/triton/capture.py --out "$out/samples" --records "$out/records"
python3 - "$out/samples" <<'PY'
import json, os, sys
bad = 0
for name in ("gemm_leakyrelu", "attention_fwd"):
    got = json.load(open(os.path.join(sys.argv[1], f"{name}.launch.json")))
    want = json.load(open(f"samples/triton/captured/{name}.launch.json"))
    keys = ("kernel", "cubin", "grid", "block", "dynamic_shared", "params", "flops", "bytes")
    diff = [k for k in keys if got.get(k) != want.get(k)]
    print(f"{name}: {'same as samples/triton/captured' if not diff else 'DIFFERS in ' + ', '.join(diff)}")
    bad += bool(diff)
sys.exit(1 if bad else 0)
PY

echo "== 2. transformer block: warm-up run (compiles, autotunes), then the capture"
TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0 python3 bench/tune/transformer_block.py --warmup 1 --steps 2 "$@"
python3 -m sassx_capture -o "$out/block" -- python3 bench/tune/transformer_block.py --warmup 2 --steps 3 "$@"
python3 - "$out/block/capture.json" <<'PY'
import json, sys
cap = json.load(open(sys.argv[1]))
n, s = len(cap["kernels"]), sum(k["time_share"] for k in cap["kernels"])
print(f"{n} kernels captured, {len(cap['skipped'])} skipped, Triton share of GPU time {s:.3f} ({cap['time_source']})")
sys.exit(0 if n >= 10 else 1)
PY

echo "== 3. the program's step time over 3 fresh runs"
python3 -m sassx_capture time --runs 3 --pattern 'step_ms=([0-9.]+)' --json \
  -- python3 bench/tune/transformer_block.py --warmup 3 --steps 10 "$@" > "$out/time.json"
python3 -c "import json; r = json.load(open('$out/time.json')); print('median step', r['median'], 'ms', r['interval'])"
