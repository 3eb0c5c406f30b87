#!/usr/bin/env bash
# A/B comparison of two runs, as Google Benchmark users do it:
#   scripts/compare.sh A.json B.json            two bench JSON files: Google Benchmark's own
#                                               tools/compare.py (Debian's libbenchmark-tools):
#                                               per row the time change and, with repetitions,
#                                               a Mann-Whitney U test
#   scripts/compare.sh results/A results/B      two results folders (one machine on two commits,
#                                               or two machines): python -m analysis.compare,
#                                               each row's medians, B/A and the 95% CI of the
#                                               difference, the rows beyond noise marked
# Further arguments go to the tool (compare.py: e.g. -a for aggregates only; analysis.compare:
# --out FILE.md). Exit 2 on bad input.
set -euo pipefail
. "$(dirname "$0")/common.sh"
COMPARE_PY="${COMPARE_PY:-/usr/share/benchmark/compare.py}"
PY="$REPO_ROOT/.venv/bin/python"   # has scipy, which compare.py needs
[ -x "$PY" ] || PY="$PYTHON_BASE"

usage() { echo "usage: scripts/compare.sh A B [tool options]   (A, B: two bench JSON files or two results folders)" >&2; exit 2; }
[ $# -ge 2 ] || usage
A=$1 B=$2; shift 2
if [ -d "$A" ] && [ -d "$B" ]; then
  cd "$REPO_ROOT" && exec "$PY" -m analysis.compare "$A" "$B" "$@"
elif [ -f "$A" ] && [ -f "$B" ]; then
  if [ ! -f "$COMPARE_PY" ]; then
    echo "compare: Google Benchmark's compare.py is not at $COMPARE_PY: apt-get install libbenchmark-tools" \
         "(scripts/setup.sh installs it)" >&2
    exit 2
  fi
  # Rows that did not run (CUDA rows without a GPU: error rows) only add empty U-test lines
  # to compare.py's output: hand it copies without them.
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  for side in A B; do
    "$PY" - "${!side}" "$tmp/$side.json" <<'PYEOF' || exit 2
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
    doc["benchmarks"] = [b for b in doc["benchmarks"] if not b.get("error_occurred")]
except (OSError, ValueError, KeyError, TypeError) as e:
    sys.exit(f"compare: {sys.argv[1]}: not a bench JSON file ({e})")
json.dump(doc, open(sys.argv[2], "w"))
PYEOF
  done
  color=(); [ -t 1 ] || color=(--no-color)
  echo "Comparing $A (A) to $B (B); rows that did not run left out"
  "$PY" "$COMPARE_PY" "${color[@]}" "$@" benchmarks "$tmp/A.json" "$tmp/B.json" | tail -n +2
else
  echo "compare: '$A' and '$B' must be two bench JSON files or two results folders" >&2
  exit 2
fi
