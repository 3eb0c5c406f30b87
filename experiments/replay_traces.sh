#!/usr/bin/env bash
# The replay page (results/traces/replay.md): ./attribute --what-if on every real trace of
# tests/data/traces (through the iris_trace package), its JSON into results/traces/replay-json/,
# the page from its text and from HTA's critical path (results/traces/hta-critical-path.json,
# committed data written by experiments/hta_critical_path.py in a scratch venv: no HTA is needed here).
# Cost: about 10 s on 2 cores (the 25 MB trace is most of it).
# Usage: experiments/replay_traces.sh   (from the repository root, the package installed by setup)
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
"$python" -m analysis.replay_report tests/data/traces/*.json.gz tests/data/traces/two-ranks \
  --what-if no-syncs --what-if "log-every=1,2,5,10,100,never" --what-if scale-launches=0.5 \
  --what-if graph-steps --what-if scale-kernels=0.5 \
  --json-out results/traces/replay-json --hta results/traces/hta-critical-path.json --out results/traces
