#!/usr/bin/env bash
# The small part of a driver run's folder for the trip back (at most 8 files return from a device call):
# every text and JSON file under 2 MB, without captured values or cubins, as DEST.tar.xz.
# Usage: bench/driver/bring_back.sh RUN_DIR DEST
set -uo pipefail
src=$1 dst=$2
(cd "$src" && find . -type f \( -name '*.txt' -o -name '*.json' -o -name '*.csv' \) -size -2M -print0 |
  tar cJf "$dst.tar.xz" --null -T -)
