"""iris_trace.hta.TraceAnalysis against HTA's pickled frames (experiments/hta_frames_reference.py),
on real or generated traces: every frame with pandas.testing.assert_frame_equal, ours made by the
rules of the release that made the pickle. Run with a Python that has the package installed:

    python -m experiments.hta_frames_check --ref DIR TRACE...      # DIR/<stem>.pkl per TRACE
    # generated: python -m experiments.hta_trace_gen --seed N --out out/hta-gen/N, then the reference

Prints one line per trace (EQUAL, or each difference) and a count; exit 1 on any difference.
"""

import argparse
import pickle
import sys
from pathlib import Path

from experiments import hta_compare
from experiments.hta_frames_reference import pin_hash_seed, stem


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", required=True)
    ap.add_argument("traces", nargs="+")
    args = ap.parse_args()
    # The seed the reference was made under (its pickles say), so that ties fall alike.
    with open(Path(args.ref) / f"{stem(args.traces[0])}.pkl", "rb") as f:
        pin_hash_seed(__spec__.name, pickle.load(f).get("hash_seed"))
    from iris_trace.hta import TraceAnalysis

    bad = 0
    for t in args.traces:
        with open(Path(args.ref) / f"{stem(t)}.pkl", "rb") as f:
            ref = pickle.load(f)
        try:
            a = TraceAnalysis(trace_dir=t, hta_version=ref.get("hta_version", "0.5.0"))
            ours = hta_compare.our_frames(a, ref["ranks"])
            diffs = hta_compare.compare(ref, ours)
        except Exception as e:  # noqa: BLE001 - a load that fails is a difference
            diffs = [f"load: {type(e).__name__}: {e}"]
        bad += bool(diffs)
        print(f"{t}: {'EQUAL' if not diffs else ' | '.join(diffs)}", flush=True)
    print(f"{len(args.traces) - bad} equal, {bad} different")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
