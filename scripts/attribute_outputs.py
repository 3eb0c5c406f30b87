"""Every output of ./attribute on every trace we have, to show a change kept them byte-identical.

A refactor of the trace library must not move a figure. This runs an ./attribute binary in each
of its modes (the attribution's text and JSON, --hta with and without HTA's rounding, --replay
and the what-ifs) on every shared trace, every test trace and a set of generated ones
(experiments/hta_trace_gen.py, seeded), and writes each run's stdout, stderr, exit status and
JSON into a folder with a manifest of their SHA-256. Two folders are then compared.

    python3 -m scripts.attribute_outputs run --attribute build/attribute --out /tmp/after
    python3 -m scripts.attribute_outputs compare /tmp/before /tmp/after
    python3 -m scripts.attribute_outputs against REF     # builds REF's ./attribute, runs both, compares

Exit 0 when the outputs are identical, 1 when any differs (each difference listed), 2 on bad use.
Standard library only.
"""

import argparse
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "traces"

# name -> flags; every mode also writes --json.
MODES = {
    "attribution": [],
    "hta": ["--hta"],
    "hta-no-rounding": ["--hta-no-rounding"],
    "replay": ["--replay"],
    "what-ifs": [
        "--what-if",
        "no-syncs",
        "--what-if",
        "log-every=2,10,never",
        "--what-if",
        "scale-kernels=0.5",
        "--what-if",
        "scale-kernels=2:name=gemm",
        "--what-if",
        "scale-launches=0.5",
        "--what-if",
        "graph-steps",
    ],
}


def traces(generated, scratch):
    """(label, path) of every input: shared, test and generated traces."""
    found = []
    roots = [
        (SHARED, "shared"),
        (REPO / "tests" / "data", "tests/data"),
        (REPO / "results", "results"),
    ]
    for root, prefix in roots:
        if not root.is_dir():
            continue
        for p in sorted(root.rglob("*")):
            is_trace = p.is_file() and p.name.endswith(
                (".json.gz", ".sqlite", ".sqlite.gz", ".trace.json")
            )
            is_ranks = p.is_dir() and p.name == "two-ranks"  # a folder of ranks is one input too
            if (is_trace and "expected" not in p.parts and "two-ranks" not in p.parts) or is_ranks:
                found.append((f"{prefix}/{p.relative_to(root)}", p))
    for case in sorted((REPO / "tests" / "data" / "hta_cases").glob("*")):
        if case.is_dir():
            found.append((f"hta_cases/{case.name}", case / "trace"))
    for seed in range(1, generated + 1):
        out = pathlib.Path(scratch) / f"gen-{seed}"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "experiments.hta_trace_gen",
                "--seed",
                str(seed),
                "--out",
                str(out),
            ],
            cwd=REPO,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        found.append((f"generated/seed-{seed}", out))
    return found


def run(binary, out_dir, generated):
    out_dir = pathlib.Path(out_dir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    manifest = {}
    with tempfile.TemporaryDirectory() as scratch:
        inputs = traces(generated, scratch)
        for i, (label, path) in enumerate(inputs, 1):
            print(f"[{i}/{len(inputs)}] {label}", file=sys.stderr, flush=True)
            for mode, flags in MODES.items():
                key = f"{label}/{mode}".replace("/", "__")
                json_path = pathlib.Path(scratch) / "out.json"
                if json_path.exists():
                    json_path.unlink()
                env = dict(os.environ)
                env.pop("HTA_DISABLE_NS_ROUNDING", None)
                r = subprocess.run(
                    [str(binary), *flags, "--json", str(json_path), str(path)],
                    capture_output=True,
                    env=env,
                    check=False,
                )

                # Outputs name the input by its path, which differs between checkouts and
                # scratch folders: every part names it by its label instead.
                def named(data, path=path, label=label):
                    return data.replace(str(path).encode(), label.encode())

                parts = {
                    "stdout": named(r.stdout),
                    "stderr": named(r.stderr),
                    "rc": str(r.returncode).encode(),
                    "json": named(json_path.read_bytes()) if json_path.exists() else b"(none)",
                }
                for part, data in parts.items():
                    (out_dir / f"{key}.{part}").write_bytes(data)
                    manifest[f"{key}.{part}"] = hashlib.sha256(data).hexdigest()
    (out_dir / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(
        f"{len(manifest)} outputs of {len(inputs)} inputs x {len(MODES)} modes in {out_dir}",
        file=sys.stderr,
    )


def compare(a, b):
    ma = json.loads((pathlib.Path(a) / "MANIFEST.json").read_text())
    mb = json.loads((pathlib.Path(b) / "MANIFEST.json").read_text())
    differ = sorted(k for k in ma.keys() & mb.keys() if ma[k] != mb[k])
    only = sorted(ma.keys() ^ mb.keys())
    for k in differ:
        print(f"differs: {k}")
    for k in only:
        print(f"only in {'first' if k in ma else 'second'}: {k}")
    same = len(ma.keys() & mb.keys()) - len(differ)
    print(f"{same} identical, {len(differ)} differ, {len(only)} in one only")
    return 0 if not differ and not only else 1


def build_at(ref, where):
    """./attribute of commit REF, built trace-only in a scratch worktree."""
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(where), ref],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    build = pathlib.Path(where) / "build-trace"
    subprocess.run(
        [
            "cmake",
            "-S",
            str(where),
            "-B",
            str(build),
            "-G",
            "Ninja",
            "-DIRIS_TRACE_ONLY=ON",
            "-DCMAKE_BUILD_TYPE=Release",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(["ninja", "-C", str(build), "attribute"], check=True, stdout=subprocess.DEVNULL)
    return build / "attribute"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one binary on every input, write outputs + manifest")
    r.add_argument("--attribute", required=True, type=pathlib.Path)
    r.add_argument("--out", required=True, type=pathlib.Path)
    r.add_argument("--generated", type=int, default=60, help="generated traces (seeds 1..N)")
    c = sub.add_parser("compare", help="compare two output folders")
    c.add_argument("a", type=pathlib.Path)
    c.add_argument("b", type=pathlib.Path)
    g = sub.add_parser("against", help="build REF's ./attribute and compare it with --attribute")
    g.add_argument("ref")
    g.add_argument("--attribute", type=pathlib.Path, default=REPO / "build" / "attribute")
    g.add_argument("--generated", type=int, default=60)
    args = ap.parse_args()
    if args.cmd == "run":
        if not os.access(args.attribute, os.X_OK):
            ap.error(f"{args.attribute}: not an executable ./attribute")
        run(args.attribute, args.out, args.generated)
        return 0
    if args.cmd == "compare":
        for d in (args.a, args.b):
            if not (d / "MANIFEST.json").is_file():
                ap.error(f"{d}: no MANIFEST.json (write one with 'run')")
        return compare(args.a, args.b)
    if not os.access(args.attribute, os.X_OK):
        ap.error(f"{args.attribute}: not an executable ./attribute (build it first)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        try:
            base = build_at(args.ref, tmp / "worktree")
            run(base, tmp / "before", args.generated)
            run(args.attribute, tmp / "after", args.generated)
            return compare(tmp / "before", tmp / "after")
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tmp / "worktree")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )


if __name__ == "__main__":
    sys.exit(main())
