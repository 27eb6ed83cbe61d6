# Shared by the bench/*/pack_device.sh scripts (source it): packing binaries built here, with the
# runtime libraries the GPU machine lacks (it has no Qt or build tree), and the sm_90 samples.
#   pack_binaries DST BIN...   copies BINs to DST/bin (stripped, rpath $ORIGIN/../lib), their libs to DST/lib
#                              (rpath $ORIGIN; glibc and libstdc++ are left out: the GPU machine's are newer)
#   pack_samples DST BUILD     copies every sm_90 sample cubin and launch spec (not big_/huge_) to DST/data
#   pack_results RAW OUT NAME [compact_results.py options]
#                              on the device, a run's raw output folder RAW for the trip back (at most 8
#                              files return): OUT/NAME.tar.xz holds the compact copy that bench/results
#                              keeps (bench/compact_results.py; unpack it into bench/results/..., never
#                              commit the archive), OUT/NAME-raw.tar.xz everything, for a look, not the tree
#   pack_nvdisasm DST [or-path] copies the pinned wheel's nvdisasm (run.sh installs it; nvidia/cu*/bin) to
#                              DST/bin: the GPU machine's toolkit lists some sm_90 kernels incompletely, and
#                              the workspace refuses an incomplete listing; or-path: else the one on PATH
# The device side of a pack (unpacking it, the worker's environment, the run's env.json) is bench/lib/device.sh.
pack_binaries() {
  local dst=$1; shift
  mkdir -p "$dst"/bin "$dst"/lib
  for b in "$@"; do
    cp "$b" "$dst"/bin/; strip "$dst/bin/$(basename "$b")"
    patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$dst/bin/$(basename "$b")"
  done
  for lib in $(ldd "$@" 2>/dev/null | awk '/=> \//{print $3}' | sort -u); do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
      *) cp -L "$lib" "$dst"/lib/ ;;
    esac
  done
  for l in "$dst"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$l" 2>/dev/null || true; done
}

pack_samples() {
  local dst=$1 build=$2
  mkdir -p "$dst"/data
  for spec in "$build"/samples/*.launch.json; do
    local name; name=$(basename "$spec" .launch.json)
    case "$name" in big_*|huge_*) continue;; esac
    [ -f "$build/samples/$name.sm_90.cubin" ] || continue
    cp "$build/samples/$name.sm_90.cubin" "$spec" "$dst/data/"
  done
}

PACK_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pack_results() {
  local raw=$1 out=$2 name=$3; shift 3
  local tmp; tmp=$(mktemp -d)
  python3 "$PACK_LIB_DIR"/compact_results.py "$raw" "$tmp/$name" "$@" &&
    tar cJf "$out/$name.tar.xz" -C "$tmp" "$name"
  tar cJf "$out/$name-raw.tar.xz" -C "$(dirname "$raw")" "$(basename "$raw")"
  rm -rf "$tmp"
}

pack_nvdisasm() {
  local dst=$1 nv
  nv=$(python3 -c "import glob,site,sys; p=[q for s in site.getsitepackages()+[site.getusersitepackages()] for q in glob.glob(s+'/nvidia/cu*/bin/nvdisasm')]; print(p[0] if p else '')")
  if [ -z "$nv" ] && [ "${2:-}" = or-path ]; then nv=$(command -v nvdisasm || true); fi
  if [ -n "$nv" ] && [ -x "$nv" ]; then mkdir -p "$dst"/bin && cp "$nv" "$dst"/bin/; fi
  return 0
}
