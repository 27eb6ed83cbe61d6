#!/usr/bin/env bash
# The driver hook on a GPU (docs/driver-capture.md): which launch paths it substitutes (probe.py), then for
# each kind of program no Triton hook reaches -- PyTorch's SDPA flash attention (bench/tune/attention_prefill.py
# --attn sdpa), a cpp_extension, a CuPy RawKernel, a jax.jit program (kinds.py) -- capture, tune in the
# default space, write back into DIR/tuned, check that a fresh run with --tuned gives the untuned run's
# output, and time it in interleaved fresh runs with the in-program kernel times (controls included).
# Needs the search pack (SEARCH_ONLY=1 bench/gpu_suite/pack.sh) and the hook (bench/driver/pack.sh), carried.
#
# Usage: OUT=$OUT [PHASE=probe|sdpa|kinds|llama|passthrough|all] [TOTAL=120s] [PAIRS=6] [CAPTURE_ONLY=1]
#        [KINDS="cpp_ext cupy jax"] bash bench/driver/run_device.sh
# CAPTURE_ONLY=1 stops each program after its capture (a first look at what the hook lists).
set -uo pipefail
source "$(dirname "$0")"/../lib/device.sh
D=$PWD/.deps/gpusuite
O=${OUT:-/tmp/out}
PHASE=${PHASE:-all}; TOTAL=${TOTAL:-120s}; PAIRS=${PAIRS:-6}
bench_pack "$D" bin-first
bench_unpack "$PWD/.deps/driver"
export SASSX_HOOK=$PWD/.deps/driver/libsassx_hook.so
export PYTHONPATH="$PWD/app/capture${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$O"
ldd "$SASSX_HOOK" | grep -i "not found" && { echo "the hook's libraries are missing here"; exit 1; }
bench_env "$O"/env "PHASE=$PHASE TOTAL=$TOTAL PAIRS=$PAIRS"
step() { echo "== $* ($(date -u +%T))"; }

# One program through the whole loop: NAME, then the program's command.
loop() {
  local name=$1; shift
  local W=$O/$name; mkdir -p "$W"
  step "$name: untuned run"
  "$@" --steps 3 > "$W"/untuned.txt 2>&1
  step "$name: capture"
  python3 -m sassx_capture -o "$W"/cap -- "$@" --steps 3 > "$W"/capture.txt 2>&1
  tail -20 "$W"/capture.txt
  [ "${CAPTURE_ONLY:-0}" = 1 ] && { cp "$W"/cap/capture.json "$W"/capture.json 2>/dev/null; return; }
  step "$name: tune"
  sassx-cli tune "$W"/cap --total-time "$TOTAL" > "$W"/tune.txt 2>&1; tail -15 "$W"/tune.txt
  sassx-cli tune "$W"/cap --write-back > "$W"/writeback.txt 2>&1; cat "$W"/writeback.txt
  step "$name: tuned run"
  python3 -m sassx_capture run --tuned "$W"/cap/tuned -- "$@" --steps 3 > "$W"/tuned.txt 2>&1
  grep -h "sha256" "$W"/untuned.txt "$W"/tuned.txt
  step "$name: time"
  python3 -m sassx_capture time --runs "$PAIRS" --pattern 'step_ms=([0-9.]+)' --skip 1 \
    --before "sassx-cli tune $W/cap --restore" --after "sassx-cli tune $W/cap --write-back" \
    --tune-dir "$W"/cap -- "$@" --steps 20 > "$W"/time.txt 2>&1
  cat "$W"/time.txt
  sassx-cli tune "$W"/cap --json > "$W"/report.json 2>/dev/null
}

case "$PHASE" in probe|all) step probe; python3 bench/driver/probe.py "$SASSX_HOOK" "$O" ;; esac
case "$PHASE" in sdpa|all) loop sdpa python3 bench/tune/attention_prefill.py --attn sdpa --seq 16384 --batch 1 \
  --heads 32 --head-dim 128 --warmup 2 ;; esac
case "$PHASE" in kinds|all)
  for k in ${KINDS:-cpp_ext cupy jax}; do loop "$k" python3 bench/driver/kinds.py "$k"; done ;;
esac
case "$PHASE" in llama|all)
  step "llama: what share of a transformers Llama step the capture reaches"
  W=$O/llama; mkdir -p "$W"
  python3 -m sassx_capture -o "$W"/cap -- python3 bench/driver/llama_step.py --steps 3 > "$W"/capture.txt 2>&1
  tail -20 "$W"/capture.txt; cp "$W"/cap/capture.json "$W"/capture.json 2>/dev/null ;;
esac
case "$PHASE" in passthrough|all)
  step "pass-through: outputs and step time with the hook loaded and no tuned directory"
  # before: the program alone; after: the same program under the hook with nothing asked of it
  prog="python3 bench/tune/attention_prefill.py --attn sdpa --steps 20"
  python3 -m sassx_capture time --runs "$PAIRS" --pattern 'step_ms=([0-9.]+)' --skip 1 \
    --before "rm -f $O/hook-on" --after "touch $O/hook-on" -- bash -c \
    "if [ -f $O/hook-on ]; then python3 -m sassx_capture run -- $prog; else $prog; fi" > "$O"/passthrough.txt 2>&1
  cat "$O"/passthrough.txt ;;
esac
bench_env_end "$O"/env
