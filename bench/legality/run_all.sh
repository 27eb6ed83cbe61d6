#!/usr/bin/env bash
# Runs run_variants.py per sample and rule, each under its own time limit, so that one slow sample cannot
# starve the others of a device call; writes OUT/<sample>.<rule>.json and OUT/<sample>.<rule>.log.
# usage (on the GPU machine): bench/legality/run_all.sh DATA OUT "sample:rule ..." [SECONDS_EACH]
set -u
DATA=$1; OUT=$2; JOBS=$3; EACH=${4:-120}
HERE=$(cd "$(dirname "$0")" && pwd)
for job in $JOBS; do
  s=${job%%:*}; r=${job##*:}
  timeout $((EACH + 40)) python3 "$HERE/run_variants.py" --data "$DATA" --out "$OUT/$s.$r.json" --inputs 3 \
    --workers 14 --timeout 20 --rules "$r" --samples "$s" --budget "$EACH" > "$OUT/$s.$r.log" 2>&1
  echo "$s $r rc=$? $(tail -1 "$OUT/$s.$r.log" | cut -c1-200)"
done
