"""The what-if validation page (results/traces/what-if-validation.md): each what-if's prediction
from a first trace against what a second trace, the same program run with the change made for
real, measured: per call (or step), median over the calls with their spread, and over the whole
trace, with the error.

    python -m analysis.what_if_pairs MANIFEST --json DIR [--out PAGE]

MANIFEST: a folder of pairs' manifest.json (tests/data/traces_pairs/README.md says what it
holds); DIR: the `./attribute --json` files experiments/what_if_validation.py wrote for it, two
per trace: STEM.attribution.json (the kernels) and STEM.replay.json (the replay, with every
what-if that starts from that trace). Every input is read and checked before anything is
written: bad input exits 2 naming the file and the field; the page is written through a
temporary file and a rename.
"""

import argparse
import os
import statistics
import sys

from iris_trace import TraceError, schema

from analysis import json_input
from analysis.atomic_write import write_atomic
from analysis.fmt import fmt_change, fmt_us
from analysis.tables import markdown_table

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Kernels per call and kernel time per call within this share of each other: the same kernels.
SAME_KERNELS = 0.10

# What a pair is judged on: each call (`--step-starts`), each ProfilerStep, or, for traces with
# neither, the whole trace's span.
UNITS = ("call", "step", "trace")

# The columns every table of the page starts with: the pair, the what-if and its three figures.
PAIR_COLUMNS = (
    "first -> second",
    "what-if",
    "first, measured us",
    "predicted us",
    "second, measured us",
    "error",
)


def pair_cells(r):
    """The cells that open every table's row: the pair and its what-if (PAIR_COLUMNS' first two)."""
    return [f"{stem(r['pair']['first'])} -> {stem(r['pair']['second'])}", f"`{r['what_if']}`"]


class ManifestError(ValueError):
    """Bad manifest: the message names the file and the field."""


def load_manifest(path):
    """The manifest, every field checked (ManifestError naming the file and the field)."""

    def field(obj, key, kind, where, required=True):
        return json_input.field(path, obj, key, kind, where, ManifestError, required)

    doc = json_input.read_json(path, ManifestError)
    if not isinstance(doc, dict):
        raise ManifestError(f"{path}: expected an object")
    m = {
        "path": path,
        "folder": os.path.dirname(os.path.abspath(path)),
        "about": field(doc, "about", str, "top level", required=False) or "",
        "tolerance": field(doc, "tolerance", float, "top level"),
        "skip_calls": field(doc, "skip_calls", int, "top level", required=False) or 0,
        "skip_why": field(doc, "skip_why", str, "top level", required=False) or "",
        "traces": {},
        "pairs": [],
    }
    if not 0 < m["tolerance"] <= 1:
        raise ManifestError(f"{path}: tolerance: expected a share above 0 and at most 1")
    if m["skip_calls"] < 0:
        raise ManifestError(f"{path}: skip_calls: expected a whole number >= 0")
    for name, t in field(doc, "traces", dict, "top level").items():
        where = f"traces.{name}"  # field() refuses a t that is not an object, naming it
        starts = field(t, "call_starts", str, where, required=False)
        every = field(t, "every", int, where, required=False)
        if every is not None and (every < 1 or starts is None):
            raise ManifestError(f"{path}: {where}.every: a whole number >= 1, with call_starts")
        if not os.path.isfile(os.path.join(m["folder"], name)):
            raise ManifestError(f"{path}: {where}: no such file beside the manifest")
        m["traces"][name] = {"call_starts": starts, "every": every or 1}
    pairs = field(doc, "pairs", list, "top level")
    if not pairs:
        raise ManifestError(f"{path}: pairs: expected at least one pair")
    for i, p in enumerate(pairs):
        where = f"pairs[{i}]"
        pair = {k: field(p, k, str, where) for k in ("first", "second", "change", "unit")}
        for k in ("first", "second"):
            if pair[k] not in m["traces"]:
                raise ManifestError(f"{path}: {where}.{k}: {pair[k]} is not among traces")
        if pair["unit"] not in UNITS:
            raise ManifestError(f"{path}: {where}.unit: expected 'call', 'step' or 'trace'")
        what_ifs = field(p, "what_ifs", list, where)
        if not what_ifs or not all(isinstance(w, str) and w for w in what_ifs):
            raise ManifestError(f"{path}: {where}.what_ifs: expected a list of --what-if specs")
        pair["what_ifs"] = what_ifs
        pair["kernels_change"] = field(p, "kernels_change", str, where, required=False)
        m["pairs"].append(pair)
    return m


def stem(name):
    return name[: -len(".json.gz")] if name.endswith(".json.gz") else os.path.splitext(name)[0]


def step_flags(trace):
    """./attribute's flags that make the manifest's calls its steps (none: ProfilerStep)."""
    if trace["call_starts"] is None:
        return []
    flags = ["--step-starts", trace["call_starts"]]
    return flags + (["--step-every", str(trace["every"])] if trace["every"] > 1 else [])


def what_ifs_from(manifest, name):
    """The what-ifs that start from one trace, each once, in the manifest's order."""
    out = []
    for p in manifest["pairs"]:
        if p["first"] == name:
            out += [w for w in p["what_ifs"] if w not in out]
    return out


def load_docs(manifest, json_dir):
    """{trace name: (attribution document, replay document)}, every field used checked."""
    docs = {}
    for name in manifest["traces"]:
        base = os.path.join(json_dir, stem(name))
        docs[name] = (
            schema.load(base + ".attribution.json", expect="document"),
            schema.load(base + ".replay.json", expect="replay_document"),
        )
    return docs


# ---- figures ------------------------------------------------------------------------------


def spread(values):
    """(median, min, max) of the values; Nones when there are none."""
    if not values:
        return None, None, None
    return statistics.median(values), min(values), max(values)


def error(predicted, measured):
    return None if predicted is None or not measured else (predicted - measured) / measured


def kernels(attribution, windows):
    """(kernels a call, kernel us a call) over the trace's calls."""
    total = attribution["traces"][0]["total"]
    n = max(1, windows)
    return total["kernels"] / n, total["kernel_us"] / n


def figures(manifest, docs):
    """One row per pair and what-if: the first run's, the prediction's and the second run's
    figures per call and over the whole trace, their errors, and whether the kernels matched."""
    skip = manifest["skip_calls"]
    rows = []
    for p in manifest["pairs"]:
        a1, r1 = docs[p["first"]]
        a2, r2 = docs[p["second"]]
        first, second = r1["replays"][0], r2["replays"][0]
        w1, w2 = first["replay"]["windows"], second["replay"]["windows"]
        k1, k2 = kernels(a1, len(w1)), kernels(a2, len(w2))
        same = all(abs(b / a - 1) <= SAME_KERNELS if a else b == 0 for a, b in zip(k1, k2))
        for spec in p["what_ifs"]:
            x = next((s for s in first["what_ifs"] if s["name"] == spec), None)
            if x is None:
                raise TraceError(
                    f"{first['file']}: no what-if {spec!r} in its replay JSON (rerun "
                    "experiments/what_if_validation.py)"
                )
            predicted = spread([w["predicted_pace_us"] for w in x["windows"][skip:]])
            measured = spread([w["measured_pace_us"] for w in w2[skip:]])
            row = {
                "pair": p,
                "what_if": spec,
                "assumed": x.get("assumed", ""),
                "calls": (len(w1), len(w2)),
                "before": spread([w["measured_pace_us"] for w in w1[skip:]]),
                "predicted": predicted,
                "measured": measured,
                "error": error(predicted[0], measured[0]),
                "whole_before": first["replay"]["total"]["measured_us"],
                "whole_predicted": x["total"]["predicted_us"],
                "whole_measured": second["replay"]["total"]["measured_us"],
                "whole_error": error(
                    x["total"]["predicted_us"], second["replay"]["total"]["measured_us"]
                ),
                "host_before": spread([w["measured_us"] for w in w1[skip:]]),
                "host_predicted": spread([w["predicted_us"] for w in x["windows"][skip:]]),
                "host_measured": spread([w["measured_us"] for w in w2[skip:]]),
                "rest_predicted": sum(w["predicted_pace_us"] for w in x["windows"][skip:]),
                "rest_measured": sum(w["measured_pace_us"] for w in w2[skip:]),
                "kernels": (k1, k2),
                "same_kernels": same,
            }
            if p["unit"] == "trace":
                whole_trace_row(row)
            rows.append(row)
    return rows


def whole_trace_row(row):
    """A pair judged on the whole trace (no calls to take medians over): its per-call figures are
    the whole trace's, no call is left out, and the host's share a call has no figure."""
    for key, whole in (
        ("before", "whole_before"),
        ("predicted", "whole_predicted"),
        ("measured", "whole_measured"),
    ):
        row[key] = spread([row[whole]])
    row["error"] = row["whole_error"]
    for key in ("host_before", "host_predicted", "host_measured"):
        row[key] = spread([])
    row["rest_predicted"] = row["rest_measured"] = None


def verdict(row, tolerance):
    """Met, missed (by how much), or not comparable (the kernels changed too) and why."""
    if not row["same_kernels"]:
        (n1, t1), (n2, t2) = row["kernels"]
        why = row["pair"]["kernels_change"] or "the second run's kernels differ"
        return (
            f"not comparable: the kernels change ({n1:.0f} -> {n2:.0f} a call, "
            f"{t1:.0f} -> {t2:.0f} us of kernel time): {why}"
        )
    e = row["error"]
    if e is None:
        return "no figure"
    if abs(e) <= tolerance:
        return f"met (within {100 * tolerance:.0f}%)"
    beyond = 100 * (abs(e) - tolerance)
    return f"missed: {fmt_change(e)}, {beyond:.1f} points beyond {100 * tolerance:.0f}%"


# ---- the page -----------------------------------------------------------------------------


def first_calls(n):
    return "the first call" if n == 1 else f"the first {n} calls"


def fmt_call(v):
    """A call's time: one decimal, so that a 10 % error reads at a glance."""
    return "-" if v is None else f"{v:.1f}"


def fmt_spread(s):
    median, lo, hi = s
    return "-" if median is None else f"{fmt_call(median)} ({fmt_call(lo)}-{fmt_call(hi)})"


def link(path, out):
    """A link from the page at `out` to `path` (both relative to the repository root)."""
    return os.path.relpath(os.path.join(REPO, path), os.path.dirname(os.path.join(REPO, out)))


def page_head(manifest, sources, out):
    """The title, where the page comes from, and what a call, its pace and the targets are."""
    tol = manifest["tolerance"]
    skip = manifest["skip_calls"]
    lines = [
        "# What-ifs against a second run",
        "",
        "Each row: a what-if replayed on a first trace (`./attribute --what-if`, "
        f"[docs/what-if.md]({link('docs/what-if.md', out)})), "
        "against a second trace of the same program with the change made for real. "
        "Written by `python -m analysis.what_if_pairs` from "
        f"`{os.path.relpath(manifest['path'], REPO)}` "
        f"and {len(sources)} files of `./attribute --json` "
        f"(`{os.path.relpath(os.path.dirname(sources[0]), REPO)}/`); regenerate with "
        f"`experiments/what_if_validation.py {os.path.relpath(manifest['folder'], REPO)}`.",
        "",
    ]
    readme = os.path.join(manifest["folder"], "README.md")
    about = manifest["about"]
    if os.path.isfile(readme):
        rel = os.path.relpath(readme, REPO)
        about += f" Where the traces come from: [{rel}]({link(rel, out)})."
    if about:
        lines += [about.strip(), ""]
    lines += [
        "**A call** is the trace's step: a ProfilerStep, or, where the program was profiled "
        "without steps, the stretch from one start of a range to the next (`--step-starts`; per "
        "trace below). **Per call** is its pace: from the call before it being done (its host "
        "work and the GPU work it queued both over) to this one being done, so that a run whose "
        "GPU lags behind its host is timed at the GPU's pace. The figures are the median over "
        "the calls, with their range in brackets"
        + (f", leaving out {first_calls(skip)}: {manifest['skip_why']}" if skip else "")
        + f". A prediction meets its target when its median is within {100 * tol:.0f}% of the "
        "second run's; a pair whose second run also changed the kernels (their count or time a "
        f"call by more than {100 * SAME_KERNELS:.0f}%) is shown, not judged: no what-if here "
        "changes kernels. **Whole trace**: from the first call's start until its last call and "
        "the GPU work queued in the calls are done. A pair whose traces have no calls to find "
        "(unit `trace`) is judged on the whole trace instead: its row below holds the whole "
        "trace's figures, no call left out.",
        "",
        "## Per call",
        "",
    ]
    return lines


def per_call_table(rows, tol):
    """Each what-if per call: the first run, the prediction, the second run, the verdict."""
    lines = []
    header = [*PAIR_COLUMNS, "verdict"]
    body = []
    for r in rows:
        body.append(
            [
                *pair_cells(r),
                fmt_spread(r["before"]),
                fmt_spread(r["predicted"]),
                fmt_spread(r["measured"]),
                fmt_change(r["error"]),
                verdict(r, tol),
            ]
        )
    lines += markdown_table(header, body)
    return lines


def host_share_table(rows):
    """The host's share of a call, which a GPU-paced call hides from the table above."""
    lines = []
    lines += [
        "",
        "## The host's share of a call",
        "",
        "The call's own length on the host (its step), median and range: where the GPU sets the "
        "pace, as in a graph replay of small kernels, this part of the prediction is hidden "
        "behind it and the table above does not check it. A graph's host cost in the model is "
        "one graph launch (the published, untraced cost unless the first trace has graph "
        "launches of its own); torch.compile's reduce-overhead replays through its CUDA graph "
        "trees, whose Python checks the inputs and copies them into the graph's buffers on every "
        "replay, and a graph launch under the profiler can cost more than the published "
        "untraced figure: where the second run is such a replay, its host share is larger than "
        "the model's.",
        "",
    ]
    header = list(PAIR_COLUMNS)
    body = [
        [
            *pair_cells(r),
            fmt_spread(r["host_before"]),
            fmt_spread(r["host_predicted"]),
            fmt_spread(r["host_measured"]),
            fmt_change(error(r["host_predicted"][0], r["host_measured"][0])),
        ]
        for r in rows
    ]
    lines += markdown_table(header, body)
    return lines


def whole_trace_table(rows, manifest):
    """Each what-if over the whole trace, and without the first calls when some are skipped."""
    skip = manifest["skip_calls"]
    lines = []
    lines += ["", "## Whole trace", ""]
    header = list(PAIR_COLUMNS)
    if skip:
        header += [f"without {first_calls(skip)}: predicted us", "measured us", "error"]
    body = []
    for r in rows:
        row = [
            *pair_cells(r),
            fmt_us(r["whole_before"]),
            fmt_us(r["whole_predicted"]),
            fmt_us(r["whole_measured"]),
            fmt_change(r["whole_error"]),
        ]
        if skip:
            row += [
                fmt_us(r["rest_predicted"]),
                fmt_us(r["rest_measured"]),
                fmt_change(error(r["rest_predicted"], r["rest_measured"])),
            ]
        body.append(row)
    lines += markdown_table(header, body)
    if skip:
        lines += [
            "",
            f"The whole trace holds {first_calls(skip)} ({manifest['skip_why']}): a "
            "what-if that captures the host work where that start-up happened removes it from "
            "the prediction, while the second run still has it. The last columns sum the paces "
            "of the calls after it.",
        ]
    return lines


def pairs_lines(rows, manifest):
    """The pairs, how each trace's calls were found, and what each what-if assumed."""
    lines = []
    lines += ["", "## The pairs", ""]
    seen = set()
    for r in rows:
        p = r["pair"]
        key = (p["first"], p["second"])
        if key in seen:
            continue
        seen.add(key)
        (n1, t1), (n2, t2) = r["kernels"]
        lines.append(
            f"- **{stem(p['first'])} -> {stem(p['second'])}**: {p['change']}. Calls: "
            f"{r['calls'][0]} and {r['calls'][1]}; kernels a call {n1:.1f} ({t1:.1f} us) -> "
            f"{n2:.1f} ({t2:.1f} us): "
            + ("the same kernels." if r["same_kernels"] else f"changed ({p['kernels_change']}).")
        )
    lines += ["", "How each trace's calls were found:", ""]
    whole = {
        q for p in manifest["pairs"] if p["unit"] == "trace" for q in (p["first"], p["second"])
    }
    for name, t in manifest["traces"].items():
        how = (
            "none: the whole trace is one window"
            if name in whole and t["call_starts"] is None
            else "its ProfilerSteps"
            if t["call_starts"] is None
            else f'`--step-starts "{t["call_starts"]}"`'
            + (f" `--step-every {t['every']}`" if t["every"] > 1 else "")
        )
        lines.append(f"- {stem(name)}: {how}")
    lines += ["", "## What each what-if assumed", ""]
    said = set()
    for r in rows:
        if (r["what_if"], r["pair"]["first"]) in said:
            continue
        said.add((r["what_if"], r["pair"]["first"]))
        lines.append(
            f"- `{r['what_if']}` on {stem(r['pair']['first'])}: {r['assumed'] or 'nothing'}"
        )
    return lines


def page(manifest, rows, sources, out="results/traces/what-if-validation.md"):
    lines = page_head(manifest, sources, out)
    lines += per_call_table(rows, manifest["tolerance"])
    lines += host_share_table(rows)
    lines += whole_trace_table(rows, manifest)
    lines += pairs_lines(rows, manifest)
    lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest", help="a folder of pairs' manifest.json")
    ap.add_argument("--json", required=True, help="the folder of ./attribute's JSON for it")
    ap.add_argument(
        "--out",
        default="results/traces/what-if-validation.md",
        help="the page (default results/traces/what-if-validation.md)",
    )
    args = ap.parse_args(argv)
    try:
        manifest = load_manifest(args.manifest)
        docs = load_docs(manifest, args.json)  # all checked before anything is written
        rows = figures(manifest, docs)
    except (ManifestError, TraceError) as e:
        print(f"analysis.what_if_pairs: {e}", file=sys.stderr)
        return 2
    sources = sorted(
        os.path.join(args.json, stem(n) + kind)
        for n in manifest["traces"]
        for kind in (".attribution.json", ".replay.json")
    )
    write_atomic(args.out, page(manifest, rows, sources, os.path.relpath(args.out, REPO)))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
