#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .deps/resched (pack_rescheduled.sh) and .deps/parts
# (derived_partition.py) carried: times every <sample>.part-*.cubin against ptxas' codes with
# `sassx-cli bench` (50 interleaved rounds), RUNS times each in fresh processes. Writes into $OUT.
set -uo pipefail
D=$PWD/.deps/resched; P=$PWD/.deps/parts
OUT=${OUT:-/tmp/parts}; RUNS=${RUNS:-2}
mkdir -p "$OUT"
source "$(dirname "$0")/../lib/device.sh"
bench_pack "$D"
bench_env "$OUT/env" "RUNS=$RUNS" > /dev/null
for run in $(seq 1 "$RUNS"); do
  for c in "$P"/*.part-*.cubin; do
    b=$(basename "$c" .cubin); s=${b%%.part-*}
    timeout 120 "$D/bin/sassx-cli" bench "$P/$s.launch.json" --cubin "$c" --backend gpu --rounds 50 --json \
      > "$OUT/$b.bench-$run.json" 2> "$OUT/$b.bench-$run.log"
    echo "$b run $run rc=$? $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j.get('speedup'))" "$OUT/$b.bench-$run.json" 2>&1 | tail -1)"
  done
done
