#!/usr/bin/env bash
# The whole-model loop on one GPU (docs/tune.md, docs/capture.md): capture the Triton kernels of a
# torch.compile'd transformer block, tune its largest kernels with `sassx-cli tune`, write the verified
# bests back into the Triton cache, check that a fresh run of the program really loads them (its kernels
# captured again and compared byte for byte with the bests), and time the program before and after in
# interleaved fresh runs (`sassx_capture time --before/--after`: restore, run; write back, run; ABBA), each
# captured kernel's launches timed inside those runs (`--tune-dir`: the in-program speed-ups beside the
# isolated ones in the tune report).
# Needs the GPU suite's pack (.deps/gpusuite.tar.xz, bench/gpu_suite/pack.sh) and torch + triton.
#
# Usage: OUT=$OUT [PHASE=all|prepare|tune|search|writeback|time] [GPUS=0,1,2,3] [SPACE=yield] [KERNELS=10] [TOTAL=150s] [PAIRS=6]
#        [PROGRAM=bench/tune/transformer_block.py] [BLOCK_ARGS="--gemm triton"] [NO_BUNDLE=1] bash bench/tune/run_device.sh
# PROGRAM: any program that takes --warmup N --steps N and prints one step_ms=... line per timed step.
# The phases split the loop across device calls of at most 10 minutes: prepare (compile, capture), tune
# (tune = search then writeback: write back, check what loads), time. Their state (the run's own Inductor and Triton caches and
# the capture with its database) stays in STATE (.deps/tune-state, git-ignored, so it survives between
# calls on a warm machine); each phase also leaves it in $OUT/tune-state.tar.xz, which a fresh machine
# gets back when it is carried as $STATE.tar.xz (.deps/tune-state.tar.xz by default).
set -uo pipefail
source "$(dirname "$0")"/../lib/device.sh
D=$PWD/.deps/gpusuite
O=${OUT:-/tmp/out}
PHASE=${PHASE:-all}; SPACE=${SPACE:-yield}
KERNELS=${KERNELS:-10}; TOTAL=${TOTAL:-150s}; PAIRS=${PAIRS:-6}
STATE=${STATE:-$PWD/.deps/tune-state}
read -r -a block_args <<< "${BLOCK_ARGS:---gemm triton}"
bench_pack "$D" bin-first
export PYTHONPATH="$PWD/app/capture${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# Inductor's FX-graph cache can carry Triton's compiled kernels and restore them on a cache hit; step 6
# checks that a fresh run loads the written-back cubins all the same (NO_BUNDLE=1 turns bundling off).
[ -n "${NO_BUNDLE:-}" ] && export TORCHINDUCTOR_BUNDLE_TRITON_INTO_FX_GRAPH_CACHE=0
# Inductor's static launcher bypasses Triton's launch hooks, and a graph compiled with it comes back with it
# from the FX-graph cache: every run (the warm-up included) goes through Triton's launcher, so that the
# capture sees the kernels and the timed runs launch them the same way before and after.
export TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0
if [ ! -d "$STATE" ] && [ "$PHASE" != prepare ] && [ "$PHASE" != all ]; then
  [ -f "$STATE.tar.xz" ] || { echo "no $STATE and no $STATE.tar.xz: run PHASE=prepare first"; exit 1; }
  mkdir -p "$STATE" && tar xJf "$STATE.tar.xz" -C "$STATE"
fi
[ "$PHASE" = prepare ] || [ "$PHASE" = all ] && rm -rf "$STATE"
R=$STATE/tune C=$STATE/caches
mkdir -p "$R" "$C" "$O"
# Caches of this run only: a graph compiled earlier on the machine (say, with the static launcher) must
# not come back from Inductor's cache. The paths are the same in every phase (Triton's cache entries are
# recorded by path in the capture).
export TORCHINDUCTOR_CACHE_DIR=$C/inductor TRITON_CACHE_DIR=$C/triton
block=(python3 "${PROGRAM:-bench/tune/transformer_block.py}" "${block_args[@]}")
step() { echo "== $* ($(date -u +%T))"; }
# Results to $OUT every phase: tune.tar.xz, the compact copy for bench/results (no database, cubins or
# full histories), and tune-raw.tar.xz; the state as well, for a fresh machine.
source "$(dirname "$0")"/../pack_lib.sh
finish() {
  pack_results "$STATE/tune" "$O" tune --skip raw
  tar cJf "$O"/tune-state.tar.xz --exclude=raw -C "$STATE" tune caches
  du -h "$O"/tune-state.tar.xz | cut -f1 | sed 's/^/state: /'
}
trap finish EXIT

if [ "$PHASE" = prepare ] || [ "$PHASE" = all ]; then
  bench_env "$R"/env "KERNELS=$KERNELS TOTAL=$TOTAL SPACE=$SPACE PAIRS=$PAIRS block: ${block_args[*]}" \
    "$(python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" 2>&1)" > /dev/null
  step "1. compile once (warms Inductor's and Triton's caches)"
  "${block[@]}" --warmup 1 --steps 2 > "$R"/warm.log 2>&1 || { tail -5 "$R"/warm.log; exit 1; }
  step "2. capture"
  python3 -m sassx_capture -o "$R"/cap -- "${block[@]}" --warmup 2 --steps 3 > "$R"/capture.log 2>&1 ||
    { tail -5 "$R"/capture.log; exit 1; }
  head -3 "$R"/capture.log
fi

if [ "$PHASE" = tune ] || [ "$PHASE" = search ] || [ "$PHASE" = all ]; then
  top=$(python3 - "$R"/cap/capture.json "$KERNELS" <<'PY'
import json, sys
cap = json.load(open(sys.argv[1]))
ks = sorted(cap["kernels"], key=lambda k: -k["time_share"])[: int(sys.argv[2])]
print(",".join(k["name"] for k in ks))
PY
)
  echo "tuning: $top"
  step "4. tune (space $SPACE, total $TOTAL split by time share)"
  gpus=(); [ -n "${GPUS:-}" ] && gpus=(--gpus "$GPUS")
  sassx-cli tune "$R"/cap --kernels "$top" --total-time "$TOTAL" --space "$SPACE" --backend gpu "${gpus[@]}" \
    --json >> "$R"/tune.jsonl 2>> "$R"/tune.log
  echo "tune rc=$?"; tail -3 "$R"/tune.log
fi

if [ "$PHASE" = tune ] || [ "$PHASE" = writeback ] || [ "$PHASE" = all ]; then
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
  rm -rf "$R"/cap-after/raw
fi

if [ "$PHASE" = time ] || [ "$PHASE" = all ]; then
  ab=(--before "sassx-cli tune '$R/cap' --restore" --after "sassx-cli tune '$R/cap' --write-back")
  if [ -n "${STEP_ALONE:-}" ]; then
    step "7a. the step time alone: $PAIRS interleaved pairs of fresh runs without the kernel timer"
    python3 -m sassx_capture time --runs "$PAIRS" --pattern 'step_ms=([0-9.]+)' --json "${ab[@]}" \
      -- "${block[@]}" --warmup 3 --steps 50 > "$R"/step.json 2> "$R"/step.log
    echo "step time rc=$?"; tail -3 "$R"/step.log
  fi
  step "7. the program before and after: $PAIRS interleaved pairs of fresh runs (restore / write back), each captured kernel timed per launch inside them"
  # --tune-dir: every captured kernel's launches timed inside the program, its paired in-program speed-up
  # written to cap/program-time.json, which the tune report shows beside the isolated figure.
  python3 -m sassx_capture time --runs "$PAIRS" --pattern 'step_ms=([0-9.]+)' --json "${ab[@]}" \
    --tune-dir "$R/cap" -- "${block[@]}" --warmup 3 --steps 50 > "$R"/program.json 2> "$R"/program.log
  echo "time rc=$?"; tail -3 "$R"/program.log
  python3 - "$R"/program.json <<'PY' | tee "$R"/program.txt
import json, sys
sys.path.insert(0, "app/capture")
from sassx_capture.timing import interleaved_report
print(interleaved_report(json.load(open(sys.argv[1]))))
PY
  cp "$R"/cap/program-time.json "$R"/program-time.json 2>/dev/null
  sassx-cli tune "$R"/cap --report-only > "$R"/report.txt 2>&1; cat "$R"/report.txt
  # The cache is left with the bests written back (the last --after); --restore undoes it.
fi
