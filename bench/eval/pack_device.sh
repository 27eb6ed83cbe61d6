#!/usr/bin/env bash
# Packs what the GPU machine needs into .deps/evaldev (git-ignored): binaries built here (the GPU
# machine has no Qt 6 dev packages and no network), their Qt/ICU runtime libraries with an RPATH of
# $ORIGIN/../lib, the test and benchmark cubins, and the launch specs with their cubins side by side.
# Usage: bench/eval/pack_device.sh [BUILD_DIR]   (from the repo root; needs patchelf)
set -euo pipefail
source "$(dirname "$0")/../pack_lib.sh"
build=${1:-build-eval}
dst=.deps/evaldev
rm -rf "$dst"
mkdir -p "$dst"/{bin,lib,kernels,broken,specs}
bins=("$build"/app/worker/sassx-worker "$build"/bench/eval/sassx-eval-bench
      "$build"/tests/core/eval/test_eval_gpu "$build"/tests/core/eval/test_eval_pool
      "$build"/tests/core/eval/test_eval_data "$build"/tests/core/eval/sassx_fake_worker)
[ -x "$build"/app/cli/sassx-cli ] && bins+=("$build"/app/cli/sassx-cli)
pack_binaries "$dst" "${bins[@]}"
cp "$build"/tests/core/eval/kernels/*.cubin "$dst"/kernels/
for v in oob hang renamed params wrong partial; do
  cp "$build"/tests/core/eval/kernels/eval_add_$v.cubin "$dst"/broken/
done
cp bench/eval/specs/*.launch.json "$dst"/specs/
cp "$build"/tests/core/eval/kernels/eval_add.cubin "$build"/bench/eval/eval_fma.cubin "$dst"/specs/
# A small eval_add spec for the fault test (fast baseline, so the faults dominate the time).
python3 - "$dst" <<'PY'
import json, sys
s = json.load(open("bench/eval/specs/eval_add.launch.json"))
n = 1 << 20
s["name"] = "eval_add (1M elements, fault test)"; s["grid"] = [n // 256, 1, 1]
for p in s["params"]:
    if p["kind"] == "buffer": p["count"] = n
    if p["name"] == "n": p["value"] = n
json.dump(s, open(sys.argv[1] + "/specs/eval_add_small.launch.json.fault", "w"), indent=1)
PY
mv "$dst"/specs/eval_add_small.launch.json.fault "$dst"/eval_add_small.launch.json
cp "$dst"/specs/eval_add.cubin "$dst"/
# The sm_90 samples: their launch specs and cubins, side by side as the samples' build lays them out.
for spec in "$build"/samples/*.launch.json; do
  c=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("cubin",""))' "$spec")
  if [ -f "$build/samples/$c" ]; then cp "$spec" "$build/samples/$c" "$dst"/specs/; fi
done
rm -f "$dst"/specs/*.sm_80.cubin
# ICU data is large: ship the libraries compressed, run_device.sh unpacks them.
tar -cJf "$dst"/lib.tar.xz -C "$dst" lib && rm -rf "$dst"/lib
du -sh "$dst"; ls "$dst"/specs
