#!/usr/bin/env python3
"""The trace library's layering, checked from the #include lines (src/README.md draws it).

  model   <- import            the readers of other people's files
  model   <- analyze           one analysis per question, over records, never over a file
  analyze <- export            writers of records and figures (Chrome trace, JSON, tables)
  all     <- tools/            the programs' mains: flags and output
  model, export <- capture     the only code that includes CUDA, CUPTI, NVTX or LibTorch

A file under src/trace/ or tools/ that includes a CUDA, CUPTI, NVTX or LibTorch header, or a
layer that includes one it may not, is printed as FILE:LINE with the rule, and the exit code
is 1. `--self-test` builds small trees with each kind of breach (and one clean tree) and
checks that each is caught, so this check cannot pass by reading nothing.
Standard library only: it runs in the trace-only build as well as the full one.
"""

import argparse
import pathlib
import re
import sys
import tempfile

# Folder (relative to the repository) -> the project include prefixes its files may use.
# The longest matching folder wins; a file in no listed folder is not checked.
ALLOWED = {
    "src/trace/model": ("trace/model/",),
    "src/trace/import": ("trace/model/", "trace/import/"),
    "src/trace/analyze": ("trace/model/", "trace/analyze/"),
    "src/trace/export": ("trace/model/", "trace/analyze/", "trace/export/"),
    "tools": ("trace/",),
    "src/capture": ("trace/model/", "trace/export/", "capture/", "common/"),
}
# Folders that must build without CUDA, CUPTI, NVTX or LibTorch (the torch-free library and
# the programs made from it alone).
TORCH_FREE = ("src/trace", "tools")
FORBIDDEN_SYSTEM = re.compile(
    r"^(cuda|cupti|nvtx|nvToolsExt|cublas|cudnn|nvml|torch/|ATen/|c10/|caffe2/)"
)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")


def rule_for(rel):
    best = None
    for folder in ALLOWED:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def check(root):
    """Every breach under root as 'file:line: message'."""
    root = pathlib.Path(root)
    breaches = []
    checked = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        folder = rule_for(rel)
        if folder is None:
            continue
        checked += 1
        torch_free = any(rel.startswith(f + "/") for f in TORCH_FREE)
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            if torch_free and FORBIDDEN_SYSTEM.match(name):
                breaches.append(
                    f"{rel}:{n}: includes <{name}>: {folder}/ must build without CUDA, CUPTI, NVTX or LibTorch"
                )
            if kind == '"' and "/" in name:
                top = name.split("/", 1)[0]
                if top in (
                    "trace",
                    "capture",
                    "common",
                    "cuda",
                    "train",
                    "iris",
                ) and not name.startswith(ALLOWED[folder]):
                    breaches.append(
                        f'{rel}:{n}: includes "{name}": {folder}/ may include only {", ".join(ALLOWED[folder])}'
                    )
    return breaches, checked


def self_test():
    cases = {
        "clean": (
            {
                "src/trace/analyze/a.h": '#include "trace/model/records.h"\n#include <vector>\n',
                "src/capture/c.cpp": '#include <cupti.h>\n#include "trace/model/records.h"\n',
            },
            0,
        ),
        "cuda in analyze": ({"src/trace/analyze/a.cpp": "#include <cuda_runtime_api.h>\n"}, 1),
        "torch in model": ({"src/trace/model/m.h": "#include <torch/torch.h>\n"}, 1),
        "nvtx in tools": ({"tools/t.cpp": "#include <nvtx3/nvtx3.hpp>\n"}, 1),
        "analyze reads a file format": (
            {"src/trace/analyze/a.h": '#include "trace/import/kineto/kineto_import.h"\n'},
            1,
        ),
        "import uses an analysis": (
            {"src/trace/import/i.cpp": '#include "trace/analyze/attribution.h"\n'},
            1,
        ),
        "capture depends on a reader": (
            {"src/capture/s.cpp": '#include "trace/import/byte_source.h"\n'},
            1,
        ),
        "trace library uses capture": (
            {"src/trace/export/e.cpp": '#  include "capture/nvtx_phase.h"\n'},
            1,
        ),
    }
    failed = 0
    for name, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as d:
            for rel, text in files.items():
                p = pathlib.Path(d, rel)
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
            breaches, checked = check(d)
            ok = len(breaches) == expected and checked == len(files)
            failed += not ok
            print(
                f"{'ok' if ok else 'FAILED'}: {name}: {len(breaches)} breach(es), expected {expected}"
            )
    return failed


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--root", default=str(pathlib.Path(__file__).resolve().parent.parent), help="the repository"
    )
    ap.add_argument(
        "--self-test", action="store_true", help="check that each kind of breach is caught"
    )
    args = ap.parse_args()
    if args.self_test:
        return 1 if self_test() else 0
    breaches, checked = check(args.root)
    for b in breaches:
        print(b)
    if checked == 0:
        print(
            f"check_layers: no source file found under {args.root}/src/trace, src/capture or tools"
        )
        return 1
    print(f"check_layers: {checked} files, {len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
