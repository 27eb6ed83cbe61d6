#!/usr/bin/env bash
# Two programs through capture -> tune -> write-back side by side, one GPU each (bench/tune/run_device.sh
# does the work; docs/tune.md): the attention showcase (bench/tune/attention_prefill.py) and the loss and
# norm step (bench/tune/loss_norm_step.py: labels with an ignore index, an RMSNorm backward in place).
# Then a capture of the torch.compile'd flex_attention program with recorded values (bench/capture/programs).
# Usage (device, repository root, .deps/gpusuite.tar.xz carried): OUT=$OUT PHASE=prepare+tune|time
#        [TOTAL_ATTN=300s] [TOTAL_LOSS=240s] [PAIRS=10] [RETUNE=kernel,...] bash bench/tune/showcase_device.sh
# PHASE=time on a fresh machine needs .deps/tune-state-{attention,lossnorm}.tar.xz carried (a prepare+tune
# call leaves them in $OUT); RETUNE first tunes the loss step's kernels a --total-time left for later.
set -uo pipefail
O=${OUT:-/tmp/out}
PHASE=${PHASE:-prepare+tune}
mkdir -p "$O"
# Unpacked once here, before the two run_device.sh calls would both unpack it.
source "$(dirname "$0")"/../lib/device.sh
bench_unpack "$PWD/.deps/gpusuite"
run() { # name gpu program kernels total phase...
  local name=$1 gpu=$2 program=$3 kernels=$4 total=$5; shift 5
  for ph in "$@"; do
    CUDA_VISIBLE_DEVICES=$gpu OUT=$O/$name STATE=$PWD/.deps/tune-state-$name PROGRAM=$program BLOCK_ARGS=" " \
      SPACE=auto KERNELS=$kernels TOTAL=$total PAIRS=${PAIRS:-10} PHASE=$ph bash bench/tune/run_device.sh \
      > "$O/$name-$ph.log" 2>&1
    echo "$name $ph rc=$?"
  done
}
if [ "$PHASE" = prepare+tune ]; then
  run attention 0 bench/tune/attention_prefill.py 1 "${TOTAL_ATTN:-300s}" prepare tune &
  { run lossnorm 1 bench/tune/loss_norm_step.py 3 "${TOTAL_LOSS:-240s}" prepare tune
    export PYTHONPATH="$PWD/app/capture" TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0
    CUDA_VISIBLE_DEVICES=1 python3 bench/tune/attention_prefill.py --check --warmup 0 --steps 0 > "$O/attention-check.log" 2>&1
    CUDA_VISIBLE_DEVICES=1 python3 bench/tune/loss_norm_step.py --check --warmup 0 --steps 0 > "$O/lossnorm-check.log" 2>&1
    CUDA_VISIBLE_DEVICES=1 timeout 240 python3 -m sassx_capture -o "$O/flex-cap" -- python3 bench/capture/programs/flex_attention.py \
      > "$O/flex-capture.log" 2>&1; echo "flex capture rc=$?"
    rm -rf "$O/flex-cap/raw"; } &
  wait
else
  # The step time and every captured kernel's time inside the program, PAIRS interleaved pairs of fresh
  # runs (restore, run; write back, run), paired speed-ups with intervals (sassx_capture time --tune-dir).
  source bench/lib/device.sh
  bench_pack "$PWD/.deps/gpusuite" bin-first
  export PYTHONPATH="$PWD/app/capture" PYTHONUNBUFFERED=1 TORCHINDUCTOR_USE_STATIC_CUDA_LAUNCHER=0
  timed() { # name gpu program steps
    local name=$1 gpu=$2 program=$3 steps=$4 S=$PWD/.deps/tune-state-$1
    [ -d "$S" ] || { mkdir -p "$S" && tar xJf "$S.tar.xz" -C "$S"; }
    [ -z "${RETUNE:-}" ] || [ "$name" != lossnorm ] || {
      CUDA_VISIBLE_DEVICES=$gpu sassx-cli tune "$S/tune/cap" --kernels "$RETUNE" --total-time 120s --backend gpu \
        > "$O/$name-retune.log" 2>&1; echo "$name retune rc=$?"; }
    bench_env "$O/$name-env" "PAIRS=${PAIRS:-10} program: $program --warmup 5 --steps $steps" > /dev/null
    # The step time from runs without the kernel timer, then the kernel times from runs with it: the timer's
    # events and hooks stay out of the step time.
    local ab=(--before "sassx-cli tune '$S/tune/cap' --restore" --after "sassx-cli tune '$S/tune/cap' --write-back")
    export TORCHINDUCTOR_CACHE_DIR=$S/caches/inductor TRITON_CACHE_DIR=$S/caches/triton
    CUDA_VISIBLE_DEVICES=$gpu python3 -m sassx_capture time --runs "${PAIRS:-10}" --pattern 'step_ms=([0-9.]+)' \
      --json "${ab[@]}" -- python3 "$program" --warmup 5 --steps "$steps" > "$O/$name-step.json" 2> "$O/$name-step.log"
    echo "$name step time rc=$?"
    CUDA_VISIBLE_DEVICES=$gpu python3 -m sassx_capture time --runs "${KPAIRS:-6}" --pattern 'step_ms=([0-9.]+)' \
      --json "${ab[@]}" --tune-dir "$S/tune/cap" -- python3 "$program" --warmup 5 --steps "$steps" \
      > "$O/$name-program.json" 2> "$O/$name-program.log"
    echo "$name kernel times rc=$?"
    cp "$S/tune/cap/program-time.json" "$O/$name-program-time.json" 2>/dev/null
    sassx-cli tune "$S/tune/cap" --report-only > "$O/$name-report.txt" 2>&1
  }
  O=$O/time && mkdir -p "$O"
  # One program at a time (ONLY=attention|lossnorm picks one), so that nothing else runs on the host while a step is timed.
  [ "${ONLY:-attention}" = attention ] && timed attention 0 bench/tune/attention_prefill.py "${STEPS:-100}"
  [ "${ONLY:-lossnorm}" = lossnorm ] && timed lossnorm 0 bench/tune/loss_norm_step.py "${STEPS:-100}"
  # At most 8 files come back from a device call: the results as one archive, the states beside it.
  for n in attention lossnorm; do
    [ -d "$PWD/.deps/tune-state-$n" ] && tar cJf "$O/../$n-state.tar.xz" --exclude=raw -C "$PWD/.deps/tune-state-$n" tune caches
  done
  tar cJf "$O/../time.tar.xz" -C "$O" .
fi
for f in "$O"/*-tune.log "$O"/*-check.log "$O"/flex-capture.log "$O"/*-retune.log "$O"/*-step.log "$O"/*-program.log "$O"/*-report.txt; do [ -f "$f" ] && { echo "== $f"; tail -25 "$f"; }; done
