#!/usr/bin/env bash
# The GPU suite on the device machine (from pack.sh's .deps/gpusuite.tar.xz, carried): every test ctest
# labels `gpu`, run for real, and the CLI's GPU paths end to end on the sm_90 samples (bench with its
# instance-spread interval, a short search, stall samples). Writes $OUT/gpu-suite/{env.txt,commit.txt,
# TEST.txt,cli-*.log,cli.tsv} (env.json: bench/lib/device.sh); bench/gpu_suite/report.py turns it into the committed report.
# Usage: OUT=$OUT [GPU=0] bash bench/gpu_suite/run_device.sh
set -uo pipefail
source "$(dirname "$0")/../lib/device.sh"
D=$PWD/.deps/gpusuite
R=${OUT:-/tmp/out}/gpu-suite
mkdir -p "$R"
bench_pack "$D"
export CUDA_VISIBLE_DEVICES=${GPU:-0} QT_QPA_PLATFORM=offscreen
cp "$D"/commit.txt "$R"/
bench_env "$R"/env "GPU=${GPU:-0}" > /dev/null
for t in $(cat "$D"/tests.txt); do
  timeout 600 "$D/bin/$t" -o "$R/$t.txt,txt" > /dev/null 2>&1
  echo "$t rc=$?" >> "$R"/tests-rc.txt
done
# The CLI end to end: name, command; pass = exit 0 and the check on its output.
cli() {
  local name=$1 check=$2; shift 2
  timeout 300 "$D"/bin/sassx-cli "$@" > "$R/cli-$name.log" 2> "$R/cli-$name.err"; local rc=$?
  local ok=fail
  [ $rc -eq 0 ] && python3 -c "$check" "$R/cli-$name.log" "$R" && ok=pass
  printf '%s\t%s\t%s\tsassx-cli %s\n' "$name" "$ok" "$rc" "$*" >> "$R"/cli.tsv
}
S=$D/data
cli bench 'import json,sys; j=json.load(open(sys.argv[1]))["result"]; t=j["timing"]; assert j["correct"] and t["instances"]==5 and t["rounds"]==50 and t["ratio_ci95"][0]<=t["ratio_median"]<=t["ratio_ci95"][1]' \
  bench "$S"/rmsnorm.launch.json --backend gpu --json
cli search 'import json,sys; r=json.load(open(sys.argv[2]+"/search/report.json")); assert r["evaluations"]>0 and r["evaluator"]["backend"]=="gpu" and r["verification"]' \
  search "$S"/attention_fwd.launch.json --backend gpu --budget-time 40s --seed 1 -o "$R"/search
cli stalls 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["profile"]["pcs"])>0' \
  stalls "$S"/attention_fwd.launch.json --json
rm -rf "$R"/search/*.cubin "$R"/search/checkpoint* "$R"/search/diff.html 2>/dev/null
# The folder is what bench/results keeps (its size budget: docs/architecture.md, "Results"): the stalls
# output without its per-instruction rows (derived from profile.pcs and the listing, ~600 KB), no indentation.
python3 - "$R/cli-stalls.log" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
n = len((d.get("kernel_stalls") or {}).pop("instructions", []) or [])
if n:
    d["left_out"] = (f"kernel_stalls.instructions ({n} rows: the samples per instruction, derived from "
                     "profile.pcs and the kernel's listing), for the results' size budget")
json.dump(d, open(sys.argv[1], "w"), separators=(",", ":"))
PY
cat "$R"/tests-rc.txt "$R"/cli.tsv
# The device returns only a few loose files: one archive carries the run back (unpack it into
# bench/results/gpu-suite-GPU-DATE/; the archive itself is not committed).
tar cJf "$R/../gpu-suite.tar.xz" -C "$R/.." gpu-suite && rm -rf "$R"
