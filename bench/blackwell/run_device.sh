#!/usr/bin/env bash
# Runs, on a Blackwell GPU, what sassx needs before it may edit Blackwell cubins (docs/architectures.md):
# the latency, yield-class and reuse-under-Y0 probes and the capmerc question, on the variants
# bench/blackwell/generate.sh wrote for the GPU's architecture. From the repository root:
#   bash bench/blackwell/run_device.sh [VARIANTS_DIR] [OUT_DIR]
#   VARIANTS_DIR  default .deps/blackwell/<the GPU's arch, e.g. sm_100a>
#   OUT_DIR       default $OUT, else ./blackwell-out
# Writes OUT_DIR/summary.json and summary.md (what each probe answered), each probe's own raw files in
# OUT_DIR/<probe>/, env.{json,txt}. On any other GPU it refuses in one line and writes refused.json:
# the numbers would be that GPU's, not Blackwell's. Needs python3 with CuPy (the probes) and nvidia-smi.
set -euo pipefail
OUT_DIR=${2:-${OUT:-./blackwell-out}}
mkdir -p "$OUT_DIR"
here=$(cd "$(dirname "$0")" && pwd)

cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ' || true)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
major=${cc%%.*}
if [ -z "$cc" ] || [ "${major:-0}" -lt 10 ]; then
  found=${name:+$name (compute capability $cc)}
  why="${found:-no GPU (nvidia-smi found none)} is not a Blackwell GPU (sm_100/101/103/110/120/121); the device lends only Hopper today, so nothing was measured"
  python3 - "$OUT_DIR/refused.json" "$why" "$name" "$cc" <<'PY'
import json, sys
json.dump({"refused": sys.argv[2], "gpu": sys.argv[3], "compute_cap": sys.argv[4]}, open(sys.argv[1], "w"), indent=1)
PY
  echo "bench/blackwell/run_device.sh: $why" >&2
  exit 3
fi
arch=sm_${cc/./}
# sm_100/103/110 run the "a" variants ptxas writes for them; the desktop parts take either.
case "$arch" in sm_100|sm_101|sm_103|sm_110) arch=${arch}a ;; esac
VARIANTS=${1:-.deps/blackwell/$arch}
if [ ! -f "$VARIANTS/arch.txt" ]; then
  echo "bench/blackwell/run_device.sh: no $VARIANTS/arch.txt: run bench/blackwell/generate.sh BUILD $arch here first" >&2
  exit 1
fi
built=$(cat "$VARIANTS/arch.txt")
[ "$built" = "$arch" ] || echo "note: variants built for $built, the GPU is $arch" >&2

source "$here/../lib/device.sh"
bench_env "$OUT_DIR/env" "variants=$VARIANTS arch=$arch" > /dev/null
export PYTHONUNBUFFERED=1
declare -A rc
run_probe() { # name, command...
  local probe=$1; shift
  mkdir -p "$OUT_DIR/$probe"
  if "$@" > "$OUT_DIR/$probe/log.txt" 2>&1; then rc[$probe]=0; else rc[$probe]=$?; fi
  echo "$probe: exit ${rc[$probe]} ($(tail -1 "$OUT_DIR/$probe/log.txt"))"
}
run_probe capmerc python3 "$here/capmerc_probe.py" run "$VARIANTS/capmerc" "$OUT_DIR/capmerc/capmerc.json"
if [ -f "$VARIANTS/latency-variants.tgz" ]; then
  run_probe latency bash bench/latency/run_device.sh "$VARIANTS/latency-variants.tgz" "$OUT_DIR/latency"
fi
if [ -f "$VARIANTS/yield-classes/manifest.json" ]; then
  run_probe yield-classes bash bench/yield/classes/run_device.sh "$VARIANTS/yield-classes" "$OUT_DIR/yield-classes"
fi
if [ -f "$VARIANTS/yield-reuse/manifest.json" ]; then
  run_probe yield-reuse bash bench/yield/reuse/run_device.sh "$VARIANTS/yield-reuse" "$OUT_DIR/yield-reuse"
fi
bench_env_end "$OUT_DIR/env" > /dev/null
args=()
for p in "${!rc[@]}"; do args+=("$p=${rc[$p]}"); done
python3 "$here/summary.py" "$OUT_DIR" "$arch" "${args[@]}"
