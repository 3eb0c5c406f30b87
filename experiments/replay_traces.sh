#!/usr/bin/env bash
# The replay page (results/traces/replay.md): ./attribute --what-if on every real
# trace of tests/data/traces into results/traces/replay-json/, then the page from those files
# and from HTA's critical path (results/traces/hta-critical-path.json, committed data written by
# experiments/hta_critical_path.py in a scratch venv: no HTA is needed here).
# Cost: about 10 s on 2 cores (the 25 MB trace is most of it).
# Usage: experiments/replay_traces.sh   (from the repository root, ./attribute built; BUILD_DIR as for ./attribute)
set -euo pipefail
cd "$(dirname "$0")/.."
out=results/traces/replay-json
mkdir -p "$out"
what_ifs=(--what-if no-syncs --what-if "log-every=1,2,5,10,100,never" --what-if scale-launches=0.5
          --what-if graph-steps --what-if scale-kernels=0.5)
for f in tests/data/traces/*.json.gz tests/data/traces/two-ranks; do
  ./attribute --quiet --json "$out/$(basename "$f" .json.gz).json" "${what_ifs[@]}" "$f"
done
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
"$python" -m analysis.replay_report "$out"/*.json --hta results/traces/hta-critical-path.json --out results/traces
