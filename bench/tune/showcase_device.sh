#!/usr/bin/env bash
# Two programs through capture -> tune -> write-back side by side, one GPU each (bench/tune/run_device.sh
# does the work; docs/tune.md): the attention showcase (bench/tune/attention_prefill.py) and the loss and
# norm step (bench/tune/loss_norm_step.py: labels with an ignore index, an RMSNorm backward in place).
# Then a capture of the torch.compile'd flex_attention program with recorded values (bench/capture/programs).
# Usage (device, repository root, .deps/gpusuite.tar.xz carried): OUT=$OUT PHASE=prepare+tune|time
#        [TOTAL_ATTN=300s] [TOTAL_LOSS=240s] [PAIRS=10] bash bench/tune/showcase_device.sh
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
  run attention 0 bench/tune/attention_prefill.py 1 0s time &
  run lossnorm 1 bench/tune/loss_norm_step.py 3 0s time &
  wait
fi
for f in "$O"/*-tune.log "$O"/*-check.log "$O"/flex-capture.log; do [ -f "$f" ] && { echo "== $f"; tail -25 "$f"; }; done
