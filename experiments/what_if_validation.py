#!/usr/bin/env python3
"""The what-if validation page for a folder of trace pairs: ./attribute on every trace its
manifest names (the attribution, and the replay with every what-if that starts from it), then
the page (analysis/what_if_pairs.py).

    experiments/what_if_validation.py [FOLDER] [--attribute BIN] [--json-out DIR] [--out PAGE]

FOLDER holds the traces and their manifest.json (default tests/data/traces_pairs; its README
says what a manifest holds). Defaults: ./attribute (BUILD_DIR as for it), the JSON into
results/traces/what-if-validation-json/, the page results/traces/what-if-validation.md. Run from
the repository root. Cost: a few seconds for the four toy-block traces. A bad manifest or a
failed ./attribute: exit 2 with the reason, the page as it was.
"""

import argparse
import os
import subprocess
import sys

from analysis import what_if_pairs as v


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", default="tests/data/traces_pairs")
    ap.add_argument("--attribute", default="./attribute", help="the ./attribute to run")
    ap.add_argument("--json-out", default="results/traces/what-if-validation-json")
    ap.add_argument("--out", default="results/traces/what-if-validation.md")
    args = ap.parse_args(argv)
    manifest_path = os.path.join(args.folder, "manifest.json")
    try:
        manifest = v.load_manifest(manifest_path)
        os.makedirs(args.json_out, exist_ok=True)
        for name, trace in manifest["traces"].items():
            path = os.path.join(args.folder, name)
            base = os.path.join(args.json_out, v.stem(name))
            flags = v.step_flags(trace)
            run(
                [args.attribute, "--quiet", "--no-advice", "--json", base + ".attribution.json"]
                + flags
                + [path]
            )
            what_ifs = [a for w in v.what_ifs_from(manifest, name) for a in ("--what-if", w)]
            run(
                [args.attribute, "--quiet", "--json", base + ".replay.json"]
                + flags
                + (what_ifs or ["--replay"])
                + [path]
            )
    except (v.ManifestError, RuntimeError, OSError) as e:
        print(f"what_if_validation: {e}", file=sys.stderr)
        return 2
    return v.main([manifest_path, "--json", args.json_out, "--out", args.out])


if __name__ == "__main__":
    sys.exit(main())
