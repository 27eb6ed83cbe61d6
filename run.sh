#!/usr/bin/env bash
# sassx set-up and entry point.
#   ./run.sh          install what is missing, build the programs and the samples they open, then open
#                     the explorer on a bundled sample (or, without a display, annotate it headlessly,
#                     run a short search and print where the output went)
#   ./run.sh test     same set-up, build everything, then the whole test suite (ctest)
# Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
BUILD=${SASSX_BUILD_DIR:-$ROOT/build}
NVDISASM_WHEEL="nvidia-cuda-nvdisasm==13.5.37"
APT_PACKAGES=(cmake ninja-build g++ pkg-config qt6-base-dev libqcustomplot-dev nlohmann-json3-dev
              liblz4-dev libzstd-dev zlib1g-dev libssl-dev libsqlite3-dev libcli11-dev libbenchmark-dev clang libclang-rt-14-dev xvfb xauth python3-pip)

# Test-only, installed by `./run.sh test`: a real one-node Slurm for the cluster launcher's tests
# (docs/cluster.md). Users of sassx need no Slurm on their own machine.
TEST_APT_PACKAGES=(slurm-wlm munge)

# Optional: libtorch for the PPO plug-in (--algo ppo). Without it everything else builds and runs, and
# the PPO tests skip with the reason. OpenBLAS (single-threaded) takes over Debian's libblas.so.3, which
# libtorch calls: with the reference BLAS it links, the agent's matrix products were 73% of a PPO run and
# the agent 4.5x slower (docs/ppo.md, "Agent cost").
OPTIONAL_APT_PACKAGES=(libtorch-dev libopenblas0-serial)

log() { printf '[run.sh] %s\n' "$*" >&2; }

install_apt() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_optional_apt() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  for p in "${OPTIONAL_APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
    log "installing (optional): $p"
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$p" >/dev/null ||
      log "$p could not be installed: sassx builds without it (--algo ppo will say so)"
  done
}

nvdisasm_found() {
  [ -n "${SASSX_NVDISASM:-}" ] && [ -x "$SASSX_NVDISASM" ] && return 0
  [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvdisasm" ] && return 0
  command -v nvdisasm >/dev/null 2>&1 && return 0
  python3 - <<'PY' 2>/dev/null
import glob, site, sys
paths = site.getsitepackages() + [site.getusersitepackages()]
sys.exit(0 if any(glob.glob(p + "/nvidia/cu*/bin/nvdisasm") for p in paths) else 1)
PY
}

install_nvdisasm() {
  nvdisasm_found && return 0
  log "installing $NVDISASM_WHEEL (nvdisasm is not in this CUDA toolkit)"
  python3 -m pip install -q "$NVDISASM_WHEEL" 2>/dev/null ||
    python3 -m pip install -q --user "$NVDISASM_WHEEL" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "$NVDISASM_WHEEL"
  nvdisasm_found || { log "nvdisasm still not found after installing $NVDISASM_WHEEL"; exit 1; }
}

check_nvcc() {
  if [ -z "${CUDA_HOME:-}" ] && ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export CUDA_HOME=/usr/local/cuda
  fi
  command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/nonexistent}/bin/nvcc" ] ||
    log "warning: nvcc not found: sample cubins cannot be built (install the CUDA toolkit)"
}

# What `./run.sh` needs: the explorer, the CLI, the GPU worker, and the sm_90 samples the explorer,
# the headless annotate and search, and the user guide's walk open. `./run.sh test` builds everything:
# the tests, the benchmarks and the samples for every architecture.
RUN_TARGETS=(sassx sassx-cli sassx-worker)
RUN_SAMPLES=(sgemm_leakyrelu flash_attn_fwd hgemm_leakyrelu rmsnorm)

configure() {
  if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
}

# The run targets this build defines: without nvcc there are no sample cubins, without Qt Widgets no
# explorer (SASSX_BUILD_GUI=OFF).
run_targets() {
  local t name
  for t in "${RUN_TARGETS[@]}"; do
    ninja -C "$BUILD" -t query "$t" >/dev/null 2>&1 && echo "$t"
  done
  for name in "${RUN_SAMPLES[@]}"; do
    for t in "samples/$name.sm_90.cubin" "samples/$name.launch.json"; do
      ninja -C "$BUILD" -t query "$t" >/dev/null 2>&1 && echo "$t"
    done
  done
  return 0
}

# build [all]: the run targets, or with "all" everything (the tests included).
build() {
  configure
  if [ "${1:-}" = all ]; then
    cmake --build "$BUILD" -j "$(nproc)"
    return
  fi
  local targets
  mapfile -t targets < <(run_targets)
  [ ${#targets[@]} -gt 0 ] || { log "the build in $BUILD defines none of: ${RUN_TARGETS[*]}"; exit 1; }
  cmake --build "$BUILD" -j "$(nproc)" --target "${targets[@]}"
}

setup() {
  install_apt
  install_optional_apt
  install_nvdisasm
  check_nvcc
}

SAMPLE="$BUILD/samples/sgemm_leakyrelu.sm_90.cubin"
SEARCH_SPEC="$BUILD/samples/flash_attn_fwd.launch.json"

case "${1:-run}" in
  test)
    APT_PACKAGES+=("${TEST_APT_PACKAGES[@]}")
    setup
    build all
    rc=0
    (cd "$BUILD" && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$(nproc)" --timeout 1500) || rc=$?
    # Skips counted as skips, with their reasons; a skip ./run.sh should have prevented fails the run.
    python3 "$ROOT/tests/test_report.py" "$BUILD" || rc=1
    exit "$rc"
    ;;
  run)
    setup
    build
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$BUILD/app/gui/sassx" ]; then
      exec "$BUILD/app/gui/sassx" "$SAMPLE"
    fi
    mkdir -p "$BUILD/out"
    OUT="$BUILD/out/sgemm_leakyrelu.sm_90.annotate.json"
    "$BUILD/app/cli/sassx-cli" annotate "$SAMPLE" --json -o "$OUT"
    echo "no display: annotated $SAMPLE headlessly -> $OUT"
    # The mission's main job: a short schedule search on a bundled sample, on the GPU when a worker
    # finds one, else with the labelled estimate (it says which and why).
    SEARCH_OUT="$BUILD/out/search-flash_attn_fwd"
    if [ ! -f "$SEARCH_SPEC" ]; then
      log "no $SEARCH_SPEC (the samples need nvcc): no search to run"
      exit 1
    fi
    rm -rf "$SEARCH_OUT"
    echo "searching flash_attn_fwd (climb, all moves and control edits, 200 evaluations or 2 minutes):"
    "$BUILD/app/cli/sassx-cli" search "$SEARCH_SPEC" --algo climb --space all+control --budget-evals 200 \
      --budget-time 2m --backend auto -o "$SEARCH_OUT"
    ;;
  *)
    echo "usage: ./run.sh [run|test]" >&2
    exit 2
    ;;
esac
