#!/usr/bin/env python3
"""The trace library's layering, checked from the #include lines (src/README.md draws it).

  model   <- import            the readers of other people's files
  model   <- analyze           one analysis per question, over records, never over a file
  analyze <- export            writers of records and figures (Chrome trace, JSON, tables)
  all     <- run               one run of ./attribute: import, analyses, writers (run/run.h)
  all     <- tools/            the programs' mains: flags and output (and bench's names,
                               capture/bench_names.h, which they pass to the library)
  model, export <- capture     the only code that includes CUDA, CUPTI, NVTX or LibTorch

A file under src/trace/ or tools/ that includes a CUDA, CUPTI, NVTX or LibTorch header, or a
layer that includes one it may not, is printed as FILE:LINE with the rule, and the exit code
is 1. So is a reader (src/trace/import/) whose code names Holistic Trace Analysis (an
identifier or string with "hta" in it, any case; comments aside): HTA's definitions are an
analysis (analyze/hta_*), fed by what every reader records, never a reader's own columns. So is
a file under src/trace/ whose code names one of bench's own names as a string ("epoch", "iris":
the strings of src/capture/bench_names.h; comments aside): the library knows ProfilerStep#N and
what its caller names, and bench passes its names in. `--self-test` builds small trees with each
kind of breach (and one clean tree) and checks that each is caught, so this check cannot pass by
reading nothing.
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
    "src/trace/run": ("trace/",),
    "tools": ("trace/", "capture/bench_names.h"),
    "src/capture": ("trace/model/", "trace/export/", "capture/", "common/"),
}
# Folders that must build without CUDA, CUPTI, NVTX or LibTorch (the torch-free library and
# the programs made from it alone).
TORCH_FREE = ("src/trace", "tools", "src/capture/bench_names.h")
FORBIDDEN_SYSTEM = re.compile(
    r"^(cuda|cupti|nvtx|nvToolsExt|cublas|cudnn|nvml|torch/|ATen/|c10/|caffe2/)"
)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# Readers that must not know one analysis: a name with HTA in it, in code or a string.
NO_ANALYSIS_NAMES = {"src/trace/import": re.compile(r"[A-Za-z0-9_]*hta[A-Za-z0-9_]*", re.I)}
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")
# bench's own names, defined once; the trace library takes them from its callers.
BENCH_NAMES = "src/capture/bench_names.h"
BENCH_NAME = re.compile(r'constexpr\s+const\s+char\s*\*\s*k\w+\s*=\s*"([^"]+)"')
REPO = pathlib.Path(__file__).resolve().parent.parent


def bench_names(root):
    """The strings bench_names.h defines (the repository's, for a tree without one)."""
    header = pathlib.Path(root, BENCH_NAMES)
    if not header.is_file():
        header = REPO / BENCH_NAMES
    names = BENCH_NAME.findall(header.read_text())
    if not names:
        raise SystemExit(f"check_layers: no name defined in {header}")
    return names


def rule_for(rel):
    best = None
    for folder in ALLOWED:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def code_only(text):
    """text with its // and /* */ comments blanked (newlines kept), string literals left as
    they are: a comment may mention anything, code may not."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check(root):
    """Every breach under root as 'file:line: message'."""
    root = pathlib.Path(root)
    breaches = []
    checked = 0
    bench = [(name, '"' + name + '"') for name in bench_names(root)]
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        folder = rule_for(rel)
        if folder is None:
            continue
        checked += 1
        torch_free = any(rel == f or rel.startswith(f + "/") for f in TORCH_FREE)
        text = path.read_text(errors="replace")
        if rel.startswith("src/trace/"):
            for n, line in enumerate(code_only(text).splitlines(), 1):
                for name, quoted in bench:
                    if quoted in line:
                        breaches.append(
                            f"{rel}:{n}: names bench's {quoted} in code: the trace library takes "
                            f"it from its caller ({BENCH_NAMES}; ImportOptions::step_phase, "
                            "phase_domain)"
                        )
        names = next((rx for f, rx in NO_ANALYSIS_NAMES.items() if rel.startswith(f + "/")), None)
        if names:
            for n, line in enumerate(code_only(text).splitlines(), 1):
                if INCLUDE.match(line):
                    continue  # an include is the layer rule's
                for name in sorted(set(names.findall(line))):
                    breaches.append(
                        f"{rel}:{n}: names {name!r}: a reader records what the file says; "
                        "HTA's definitions are an analysis (src/trace/analyze/hta_*)"
                    )
        for n, line in enumerate(text.splitlines(), 1):
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
                # A reader may mention HTA in a comment, and an analysis may be HTA's.
                "src/trace/import/r.cpp": "// read for --hta too\nint x = 1; /* HtaEvent */\n",
                "src/trace/analyze/hta_rows.h": "struct HtaEvent {};\n",
                # The library may mention bench's names in a comment, and take them as data.
                "src/trace/analyze/s.cpp": '// bench passes "epoch"\nbool f(S s) { return s == step_phase; }\n',
                # The programs may include bench's names to pass them on.
                "tools/t.cpp": '#include "capture/bench_names.h"\n#include "trace/model/records.h"\n',
            },
            0,
        ),
        "the library names bench's step": (
            {"src/trace/analyze/s.cpp": 'bool f(R h) { return h.name == "epoch"; }\n'},
            1,
        ),
        "a reader names bench's NVTX domain": (
            {"src/trace/import/n/r.cpp": 'const char* kOurs = "iris";  // "iris"\n'},
            1,
        ),
        "the names come from bench_names.h": (
            {
                "src/capture/bench_names.h": 'inline constexpr const char* kStepPhase = "loop";\n',
                "src/trace/analyze/s.cpp": 'auto a = "loop", b = "epoch";\n',
            },
            1,
        ),
        "tools include other capture code": (
            {"tools/t.cpp": '#include "capture/nvtx_phase.h"\n'},
            1,
        ),
        "bench's names include CUDA": (
            {
                "src/capture/bench_names.h": '#include <cuda_runtime_api.h>\nconstexpr const char* kA = "a";\n'
            },
            1,
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
        "import includes the HTA analysis": (
            {"src/trace/import/i.cpp": '#include "trace/analyze/hta_rows.h"\n'},
            1,
        ),
        "import names an HTA field": (
            {"src/trace/import/k/i.cpp": "void f(T* out) { out->hta_float_ts = true; }\n"},
            1,
        ),
        "import declares an HTA type": ({"src/trace/import/i.h": "struct HtaEvent;\n"}, 1),
        "import says HTA in a string": (
            {"src/trace/import/i.cpp": 'const char* m = "--hta: Kineto only";\n'},
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
