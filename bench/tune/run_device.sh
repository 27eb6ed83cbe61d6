#!/usr/bin/env bash
# The whole-model loop on one GPU (docs/tune.md, docs/capture.md): capture the Triton kernels of a
# torch.compile'd transformer block, time the program in fresh processes, tune its largest kernels with
# `sassx-cli tune`, write the verified bests back into the Triton cache, check that a fresh run of the
# program really loads them (its kernels captured again and compared byte for byte with the bests), and
# time the program again. Needs the GPU suite's pack (.deps/gpusuite.tar.xz, bench/gpu_suite/pack.sh) and
# torch + triton on the device.
# Usage: OUT=$OUT [KERNELS=10] [TOTAL=150s] [RUNS=3] [BLOCK_ARGS="--gemm triton"] [NO_BUNDLE=1] bash bench/tune/run_device.sh
set -uo pipefail
[ -d .deps/gpusuite ] || tar xJf .deps/gpusuite.tar.xz -C .deps
D=$PWD/.deps/gpusuite
R=${OUT:-/tmp/out}/tune
KERNELS=${KERNELS:-10}; TOTAL=${TOTAL:-150s}; RUNS=${RUNS:-3}
read -r -a block_args <<< "${BLOCK_ARGS:---gemm triton}"
export SASSX_WORKER=$D/bin/sassx-worker SASSX_RESOURCES=$PWD/resources PATH=$D/bin:$PATH
[ -x "$D/bin/nvdisasm" ] && export SASSX_NVDISASM=$D/bin/nvdisasm
export PYTHONPATH="$PWD/app/capture${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# Inductor's FX-graph cache can carry Triton's compiled kernels and restore them on a cache hit, which
# would put the original cubins back over a write-back; with bundling off, a hit loads them from Triton's
# cache, where the write-back is (step 6 checks that it is).
[ -n "${NO_BUNDLE:-}" ] && export TORCHINDUCTOR_BUNDLE_TRITON_INTO_FX_GRAPH_CACHE=0
# Inductor's static launcher bypasses Triton's launch hooks, and a graph compiled with it comes back with it
# from the FX-graph cache: every run (the warm-up included) goes through Triton's launcher, so that the
# capture sees the kernels and the timed runs launch them the same way before and after.
export TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0
mkdir -p "$R"
# Caches of this run only: a graph compiled earlier on the machine (say, with the static launcher) must
# not come back from Inductor's cache.
C=$(mktemp -d /tmp/sassx-tune-caches.XXXX)
export TORCHINDUCTOR_CACHE_DIR=$C/inductor TRITON_CACHE_DIR=$C/triton
block=(python3 bench/tune/transformer_block.py "${block_args[@]}")
{ date -u +%FT%TZ; cat "$D"/commit.txt; echo "KERNELS=$KERNELS TOTAL=$TOTAL RUNS=$RUNS block: ${block_args[*]}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$R"/env.txt 2>&1
step() { echo "== $* ($(date -u +%T))"; }

step "1. compile once (warms Inductor's and Triton's caches)"
"${block[@]}" --warmup 1 --steps 2 > "$R"/warm.log 2>&1 || { tail -5 "$R"/warm.log; exit 1; }
step "2. capture"
python3 -m sassx_capture -o "$R"/cap -- "${block[@]}" --warmup 2 --steps 3 > "$R"/capture.log 2>&1 ||
  { tail -5 "$R"/capture.log; exit 1; }
head -3 "$R"/capture.log
top=$(python3 - "$R"/cap/capture.json "$KERNELS" <<'PY'
import json, sys
cap = json.load(open(sys.argv[1]))
ks = sorted(cap["kernels"], key=lambda k: -k["time_share"])[: int(sys.argv[2])]
print(",".join(k["name"] for k in ks))
PY
)
echo "tuning: $top"
timing() { python3 -m sassx_capture time --runs "$RUNS" --pattern 'step_ms=([0-9.]+)' --json "$@" \
             -- "${block[@]}" --warmup 3 --steps 20; }
step "4. tune (total $TOTAL split by time share)"
sassx-cli tune "$R"/cap --kernels "$top" --total-time "$TOTAL" --backend gpu --json > "$R"/tune.jsonl 2> "$R"/tune.log
echo "tune rc=$?"; tail -3 "$R"/tune.log
sassx-cli tune "$R"/cap --report-only > "$R"/report.txt 2>&1; cat "$R"/report.txt
step "5. write back"
sassx-cli tune "$R"/cap --write-back > "$R"/writeback.log 2>&1; echo "write-back rc=$?"; cat "$R"/writeback.log
step "6. does a fresh run load the bests? capture again and compare"
python3 -m sassx_capture -o "$R"/cap-after -- "${block[@]}" --warmup 2 --steps 3 > "$R"/capture-after.log 2>&1
python3 - "$R" <<'PY' | tee "$R"/loaded.txt
import hashlib, json, os, sys
R = sys.argv[1]
before = {k["name"]: k for k in json.load(open(f"{R}/cap/capture.json"))["kernels"]}
after = {k["name"]: k for k in json.load(open(f"{R}/cap-after/capture.json"))["kernels"]}
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest() if os.path.exists(p) else None
for name in sorted(before):
    best = os.path.join(R, "cap", "tune-runs", name, "best.cubin")
    if not os.path.exists(best):
        continue
    orig, tuned = sha(os.path.join(R, "cap", before[name]["cubin"])), sha(best)
    got = sha(os.path.join(R, "cap-after", after[name]["cubin"])) if name in after else None
    state = ("tuned cubin loaded" if got == tuned and tuned != orig else
             "original (nothing written)" if got == orig == tuned else
             "original loaded: write-back undone" if got == orig else
             "not seen" if got is None else "other cubin")
    print(f"{name}: {state}")
PY
# The tuned program first, then the original after --restore: the essential steps come first when
# the device's time is short.
step "7. the program with the bests: $RUNS fresh runs"
timing > "$R"/time-after.json 2> "$R"/time-after.log
step "8. restore, then the original program: $RUNS fresh runs"
sassx-cli tune "$R"/cap --restore > "$R"/restore.log 2>&1; echo "restore rc=$?"; tail -2 "$R"/restore.log
timing > "$R"/time-before.json 2> "$R"/time-before.log
python3 - "$R" <<'PY' | tee "$R"/program.txt
import json, sys
R = sys.argv[1]
b, a = json.load(open(f"{R}/time-before.json")), json.load(open(f"{R}/time-after.json"))
s = b["median"] / a["median"]
lo, hi = b["interval"][0] / a["interval"][1], b["interval"][1] / a["interval"][0]
print(f"program step: original {b['median']:.4f} ms {b['interval']}, tuned {a['median']:.4f} ms {a['interval']}; "
      f"speed-up {s:.4f}x [{lo:.4f}, {hi:.4f}] (>1 = faster; intervals of {len(b['values'])} fresh runs each)")
PY
rm -rf "$R"/cap/raw "$R"/cap-after/raw
rm -rf "$C"
tar cJf "${OUT:-/tmp/out}"/tune.tar.xz -C "$R/.." tune && rm -rf "$R"
