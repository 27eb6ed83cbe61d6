#!/bin/bash
# Captures each program in bench/capture/programs with `python -m sassx_capture` on the device machine and
# writes $OUT/capture-runs.json (bench/capture/summarize.py): per run, the kernels captured and skipped,
# what each process's hooks saw, and the tool's messages.  Run from the repository root:
#   bash bench/capture/run_device.sh            (the device tool sets $OUT; elsewhere OUT=DIR)
set -u
OUT=${OUT:-/tmp/capture-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
WORK=$(mktemp -d /tmp/sassx-capture-bench.XXXX)
source "$(dirname "$0")/../lib/device.sh"
bench_env "$WORK/env" "RUNS=${RUNS:-all}" \
  "$(python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1)"
capture() {  # run-name program [VAR=value ...]: fresh Inductor and Triton caches unless run-name ends in _warm
  local run=$1 prog=$2; shift 2
  [[ -z ${RUNS:-} || " $RUNS " == *" $run "* ]] || return 0   # RUNS="a b": only those runs
  local cache=$WORK/cache_${run%_warm}
  [[ $run == *_warm ]] || rm -rf "$cache"
  mkdir -p "$WORK/$run"
  echo "##### $run: $prog $*"
  local t0=$(date +%s.%N)
  env "$@" TRITON_CACHE_DIR=$cache/triton TORCHINDUCTOR_CACHE_DIR=$cache/inductor PYTHONPATH=app/capture \
    timeout 300 python3 -m sassx_capture -o "$WORK/$run/cap" ${CAPTURE_OPTS:-} -- python3 bench/capture/programs/$prog.py \
    >"$WORK/$run/stdout.txt" 2>"$WORK/$run/stderr.txt"
  echo $? >"$WORK/$run/rc"
  python3 -c "print($(date +%s.%N) - $t0)" >"$WORK/$run/seconds"
  echo "$prog $*" >"$WORK/$run/what"
  grep -v "^ *[0-9.]*%" "$WORK/$run/stdout.txt" | tail -3; grep "sassx_capture" "$WORK/$run/stderr.txt" | cut -c1-400 | tail -6
}
capture flex_attention flex_attention
capture flex_attention_warm flex_attention
capture flex_attention_static flex_attention BENCH_STATIC_LAUNCHER=1
capture inductor_model inductor_model
capture inductor_model_static inductor_model BENCH_STATIC_LAUNCHER=1
capture triton_jit triton_jit
capture triton_jit_late_import triton_jit_late_import
capture triton_autotune triton_autotune
capture eager_only eager_only
CAPTURE_OPTS="--int-inputs range" capture flex_attention_int_range flex_attention
python3 bench/capture/summarize.py "$WORK" "$OUT/capture-runs.json"
status=$?
if [ -f "$WORK/flex_attention_warm/cap/capture.json" ]; then
  cp "$WORK/flex_attention_warm/cap/capture.json" "$OUT/flex_attention_warm.capture.json"
fi
exit $status
