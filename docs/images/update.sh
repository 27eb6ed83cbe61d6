#!/usr/bin/env bash
# Copies the screenshots the GUI tests wrote (<build>/tests/widgets/screenshots/) over the ones in
# docs/images/ (walk-NN-*.png into walk/ without the prefix) and compresses them to a 256-colour
# palette, which keeps the UI text sharp at about a quarter of the size (every tracked file outside
# samples/ stays under 256 KB). Only images docs/ already shows are replaced.
#   docs/images/update.sh [BUILD_DIR]     (needs pngquant and optipng: apt-get install pngquant optipng)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shots=$build/tests/widgets/screenshots
[ -d "$shots" ] || { echo "no $shots: run the GUI tests first (ctest -R 'gui_screenshot|newcomer_walk|tune_dashboard')" >&2; exit 1; }
for tool in pngquant optipng; do
  command -v "$tool" >/dev/null || { echo "$tool is missing (apt-get install pngquant optipng)" >&2; exit 1; }
done
compress() { # in out
  pngquant --quality=70-95 --speed 1 --strip --force -o "$2" "$1"
  optipng -quiet -o2 "$2"
}
for shot in "$shots"/*.png; do
  name=$(basename "$shot")
  case $name in
    walk-*) dest=$here/walk/${name#walk-} ;;
    *) dest=$here/$name ;;
  esac
  [ -f "$dest" ] || continue
  compress "$shot" "$dest"
  echo "$dest: $(stat -c%s "$dest") bytes"
done
