#!/usr/bin/env bash
# Prints the nsys the suite uses: $IRIS_NSYS, else the one scripts/nsys_setup.sh unpacked into
# the cache, else `nsys` on PATH. Without one: the reason on stderr, exit 1 (the nsys tests
# turn that into a skip).
set -euo pipefail
. "$(dirname "$0")/common.sh"
if [ -n "${IRIS_NSYS:-}" ]; then
  [ -x "$IRIS_NSYS" ] || { echo "IRIS_NSYS=$IRIS_NSYS is not executable" >&2; exit 1; }
  echo "$IRIS_NSYS"
elif [ -x "$CACHE_ROOT/nsight-systems-2022.4.2/usr/bin/nsys" ] && [ -f "$CACHE_ROOT/nsight-systems-2022.4.2/.complete" ]; then
  echo "$CACHE_ROOT/nsight-systems-2022.4.2/usr/bin/nsys"
elif command -v nsys >/dev/null 2>&1; then
  command -v nsys
elif [ -f "$CACHE_ROOT/nsight-systems.failed" ]; then
  echo "no Nsight Systems: scripts/nsys_setup.sh failed: $(cat "$CACHE_ROOT/nsight-systems.failed")" >&2
  exit 1
else
  echo "no Nsight Systems: run scripts/nsys_setup.sh (or scripts/setup.sh), or set IRIS_NSYS" >&2
  exit 1
fi
