# The device scripts' shared plumbing (source it; run from the repository root, as every bench script is):
#   bench_pack DIR [bin-first]   unpacks a carried pack (DIR.tar.xz or DIR.tar.gz when DIR is missing, then
#                                its lib.tar.xz and data.tgz) and exports what the CLI and the worker need:
#                                SASSX_WORKER, SASSX_RESOURCES, SASSX_EVAL_KERNELS_DIR (DIR/kernels),
#                                SASSX_NVDISASM (DIR/bin/nvdisasm) where there is one, and PATH with the
#                                toolkit's bin after it (bin-first: DIR/bin before it, for `sassx-cli` by name)
#   bench_unpack DIR             the unpacking alone
#   bench_env BASE [SETTINGS [EXTRA_TEXT]]
#                                records the machine and the run in BASE.json (bench/lib/benchlib.py: date,
#                                command, commit, SETTINGS, every GPU's name, driver and clocks, CUDA, host)
#                                and BASE.txt, and prints BASE.txt; the pack's commit.txt when
#                                BENCH_PACK (set by bench_pack) has one
#   bench_env_end BASE [DEVICE_JSON [KEY=VALUE...]]
#                                adds the end date and a second nvidia-smi reading; DEVICE_JSON: also the
#                                probes' before/after form (device.json)
#   bench_merge DIR PREFIX DEST [--indent N] [--skip-empty]
#                                DIR/PREFIX*.json as one DEST (at most 8 files come back from a device call)
#   bench_improved REPORT        true when a search's report.json exists and found an improvement
BENCH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bench_unpack() {
  local d=$1
  if [ ! -d "$d" ]; then
    if [ -f "$d.tar.xz" ]; then tar xJf "$d.tar.xz" -C "$(dirname "$d")"
    elif [ -f "$d.tar.gz" ]; then tar xzf "$d.tar.gz" -C "$(dirname "$d")"
    fi
  fi
  if [ -f "$d/lib.tar.xz" ] && [ ! -d "$d/lib" ]; then tar xJf "$d/lib.tar.xz" -C "$d"; fi
  if [ -f "$d/data.tgz" ] && [ ! -d "$d/data" ]; then tar xzf "$d/data.tgz" -C "$d"; fi
  return 0
}

bench_pack() {
  local d=$1
  bench_unpack "$d"
  BENCH_PACK=$d
  export SASSX_WORKER=$d/bin/sassx-worker SASSX_RESOURCES=$PWD/resources
  if [ -d "$d/kernels" ]; then export SASSX_EVAL_KERNELS_DIR=$d/kernels; fi
  if [ -x "$d/bin/nvdisasm" ]; then export SASSX_NVDISASM=$d/bin/nvdisasm; fi
  if [ "${2:-}" = bin-first ]; then export PATH=$d/bin:$PATH; else export PATH=$PATH:/usr/local/cuda/bin; fi
}

# The command line of the script that sourced this file (the shell's own, so the arguments are there too).
bench_command() {
  if [ -r /proc/$$/cmdline ]; then tr '\0' ' ' < /proc/$$/cmdline | sed 's/ $//'; else echo "$0"; fi
}

bench_env() {
  local base=$1 settings=${2:-} extra=${3:-}
  mkdir -p "$(dirname "$base")"
  python3 "$BENCH_LIB_DIR"/benchlib.py env "$base" --settings "$settings" --extra "$extra" \
    --command "$(bench_command)" ${BENCH_PACK:+--pack "$BENCH_PACK"} || echo "bench_env: no record in $base.json" >&2
}

bench_env_end() {
  local base=$1 dev=${2:-}
  shift $(( $# < 2 ? $# : 2 ))
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  python3 "$BENCH_LIB_DIR"/benchlib.py env-end "$base" ${dev:+--device-json "$dev"} "${sets[@]}" ||
    echo "bench_env_end: $base.json not completed" >&2
}

bench_merge() { python3 "$BENCH_LIB_DIR"/benchlib.py merge "$@"; }

bench_improved() { [ -f "$1" ] && python3 "$BENCH_LIB_DIR"/benchlib.py improved "$1"; }
