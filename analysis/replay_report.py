"""The replay page: `./attribute --what-if` on the real traces (results/traces/replay.md and its
PNG). Per trace, ./attribute's replay text as it prints it (each window measured, replayed and
with typical delays, the targets, what a miss lacks, the what-ifs' savings, the log-every
curves); what only this page adds: HTA 0.5.0's critical-path length beside each window's
measured and replayed time, and the log-every curves drawn.

    python -m analysis.replay_report TRACE... --what-if SPEC... [--json-out DIR]
                                     [--hta results/traces/hta-critical-path.json]
                                     [--out results/traces]

Each trace is read by the iris_trace package (the library's one run of ./attribute); --json-out
writes each input's --json document there. Every input is read and checked before anything is
written: bad input exits 2 naming the file (and the field), and the page and plot already in
--out stay as they were. The page and the PNG are written to a temporary file and renamed.
"""

import argparse
import os
import re
import sys

import iris_trace

from analysis import json_input
from analysis.atomic_write import write_atomic
from analysis.fmt import fmt_us
from analysis.tables import markdown_table


def load_hta(path):
    """experiments/hta_critical_path.py's document: {(stem, rank): [rows]} (rows checked)."""
    doc = json_input.read_json(path)
    version = json_input.field(path, doc, "hta_version", str, "top level")
    out = {}
    for stem, t in json_input.field(path, doc, "traces", dict, "top level").items():
        if isinstance(t, dict) and "error" in t:
            out[(stem, None)] = t["error"]
            continue
        for rank, rows in json_input.field(path, t, "ranks", dict, f"traces.{stem}").items():
            for i, row in enumerate(rows):
                w = f"traces.{stem}.ranks.{rank}[{i}]"
                json_input.field(path, row, "window_us", float, w)
                json_input.field(path, row, "ok", bool, w)
                if row.get("critical_path_us") is not None:
                    json_input.field(path, row, "critical_path_us", float, w)
            out[(stem, int(rank))] = rows
    return version, out


# ---- figures ------------------------------------------------------------------------------


def hta_key(file, rank):
    """HTA's data is keyed as experiments/hta_reference.py names the traces: a file's name without
    .json(.gz), a folder of rank files by the folder's name (with the rank)."""
    base = re.sub(r"(\.pt\.trace)?\.json(\.gz)?$", "", os.path.basename(file))
    if re.match(r"^rank[-_]?\d+$", base):
        base = os.path.basename(os.path.dirname(file)) or base
    return base, rank


def trace_name(file, rank):
    stem, _ = hta_key(file, rank)
    return f"{stem} (rank {rank})" if re.match(r"^rank[-_]?\d+", os.path.basename(file)) else stem


def match_hta(windows, rows):
    """HTA's critical path per window: the HTA instance whose window has the measured length
    (HTA numbers CPU and GPU ProfilerStep annotations together and leaves some steps out, so
    order alone does not pair them). None where no instance matches."""
    if not isinstance(rows, list):
        return [None] * len(windows)
    free = list(rows)
    out = []
    for w in windows:
        m = w["measured_us"]
        hit = next((r for r in free if abs(r["window_us"] - m) <= max(2.0, 1e-3 * m)), None)
        if hit is not None:
            free.remove(hit)
        out.append(hit)
    return out


def hta_cells(h, hrows, measured):
    """The HTA critical path's two cells of a window: its length and its ratio to the measured."""
    if h is None:
        return ["HTA failed: " + hrows.split(":")[0] if isinstance(hrows, str) else "-", "-"]
    if not h["ok"] or h.get("critical_path_us") is None:
        return ["HTA failed: " + str(h.get("error") or "no path").split(":")[0], "-"]
    cp = h["critical_path_us"]
    return [fmt_us(cp), f"{cp / measured:.2f}" if measured else "-"]


def hta_rows(entries, hta):
    """One row per window of every trace: measured, replayed, HTA's critical path."""
    rows = []
    for name, r, key in entries:
        hrows = hta.get(key)
        if hrows is None and (key[0], None) in hta:
            hrows = hta[(key[0], None)]
        windows = r["replay"]["windows"]
        for w, h in zip(windows, match_hta(windows, hrows)):
            m = w["measured_us"]
            rows.append(
                [name, w["name"], fmt_us(m), fmt_us(w["replayed_us"])] + hta_cells(h, hrows, m)
            )
    return rows


def verdict_word(c):
    """'linear', 'not linear' or 'flat': the first words of the library's own sentence."""
    why = c["why"].lower()
    return (
        "flat"
        if why.startswith("flat")
        else "not linear"
        if why.startswith("not linear")
        else "linear"
        if why.startswith("linear")
        else "no syncs"
    )


def curve_plot(entries, path):
    """What the kept syncs add to a step (predicted minus never) against the syncs kept per step,
    one panel per trace with syncs: a straight line through the origin is the linear case."""
    from analysis.figures import plt, save_figure  # matplotlib only when a plot is drawn

    curves = [
        (name, r["windows"], c) for name, r, _ in entries for c in r["log_every"] if c["sites"] > 0
    ]
    if not curves:
        return None
    cols = min(3, len(curves))
    rows = (len(curves) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.9 * rows), squeeze=False)
    for ax, (name, windows, c) in zip(axes.flat, curves):
        per = "step" if windows == "steps" else "trace"
        pts = sorted(c["points"], key=lambda p: p["kept_per_window"])
        x = [p["kept_per_window"] for p in pts]
        y = [p["predicted_us"] - c["never_us"] for p in pts]
        ax.plot(x, y, color="tab:blue", lw=1, zorder=1)
        for p, xi, yi in zip(pts, x, y):
            ax.scatter(
                [xi],
                [yi],
                s=28,
                zorder=2,
                facecolors="none" if p["extrapolated"] else "tab:blue",
                edgecolors="tab:blue",
            )
            if not p["extrapolated"] and p["every"] != "never":
                ax.annotate(
                    f"every {p['every']}",
                    (xi, yi),
                    textcoords="offset points",
                    xytext=(4, -10),
                    fontsize=7,
                )
        top = c["replayed_us"] - c["never_us"]
        if x and x[-1] > 0:
            ax.plot(
                [0, x[-1]],
                [0, top],
                color="gray",
                ls=":",
                lw=1,
                label="straight line: never -> every",
            )
        ax.set_title(
            f"{name}: {verdict_word(c)}\n{c['sites']} {c['selector']}; never: {fmt_us(c['never_us'])} us per {per}",
            fontsize=9,
        )
        ax.set_xlabel(f"syncs kept per {per}")
        ax.set_ylabel(f"us the kept syncs add per {per}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    for ax in list(axes.flat)[len(curves) :]:
        ax.axis("off")
    fig.suptitle(
        "log-every: what the syncs kept add to the replayed step (filled: replayed; hollow: extrapolated "
        "from a sync kept alone, the trace being shorter than the interval)",
        y=1.02,
    )
    fig.tight_layout()
    return save_figure(fig, path)


HTA_HEADER = [
    "trace",
    "window",
    "measured us",
    "replayed us",
    "HTA critical path us",
    "HTA / measured",
]


def page(runs, specs, hta_version, hta, plot_name, sources):
    """runs: (input path, the run's text, its entries); the HTA table, the plot, then the texts."""
    flags = " ".join(f"--what-if {s}" for s in specs)
    lines = [
        "# Replay and what-ifs: `./attribute --what-if` on the real traces",
        "",
        "Each trace replayed from its records (the graph and its rules: `docs/what-if.md`) and "
        f"changed: `./attribute {flags} TRACE`, its text below as it prints it. Written by "
        "`python -m analysis.replay_report` (JSON: "
        + ", ".join(f"`{s}`" for s in sources)
        + "); regenerate with `experiments/replay_traces.sh`.",
        "",
    ]
    if hta:
        lines += [
            f"## Holistic Trace Analysis {hta_version}'s critical path beside the replay",
            "",
            (
                "HTA has no replay; its critical-path length for the same window is its nearest "
                "figure (matched to the window by its length)."
            ),
            "",
        ]
        entries = [e for _, _, es in runs for e in es]
        lines += markdown_table(HTA_HEADER, hta_rows(entries, hta)) + [""]
    if plot_name:
        lines += ["## The article's question: step time against the number of syncs kept", ""]
        lines += [f"![log-every curves]({plot_name})", ""]
    for path, text, _ in runs:
        lines += [f"## `{path}`", "", "```text", text.rstrip("\n"), "```", ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="trace files or folders of per-rank traces")
    ap.add_argument("--what-if", action="append", default=[], help="as ./attribute's")
    ap.add_argument("--json-out", help="folder for each input's `./attribute --json` document")
    ap.add_argument("--hta", help="experiments/hta_critical_path.py's hta-critical-path.json")
    ap.add_argument(
        "--out", default="results/traces", help="folder for replay.md (default results/traces)"
    )
    args = ap.parse_args(argv)
    try:  # every input read before anything is written
        results = [
            (p, iris_trace.attribute(p, what_if=args.what_if or None, replay=True))
            for p in args.inputs
        ]
        hta_version, hta = load_hta(args.hta) if args.hta else (None, {})
    except (OSError, ValueError) as e:  # a missing trace, TraceError, a bad spec or HTA file
        print(f"analysis.replay_report: {e}", file=sys.stderr)
        return 2
    runs = []
    sources = [os.path.relpath(args.json_out) + "/"] if args.json_out else []
    for path, result in results:
        if args.json_out:
            os.makedirs(args.json_out, exist_ok=True)
            name = re.sub(
                r"(\.pt\.trace)?\.json(\.gz)?$", "", os.path.basename(os.path.normpath(path))
            )
            json_path = os.path.join(args.json_out, f"{name}.json")
            result.save_json(json_path)
        entries = [
            (trace_name(r["file"], r["rank"]), r, hta_key(r["file"], r["rank"]))
            for r in result.to_dict()["replays"]
        ]
        runs.append((path, str(result), entries))
    os.makedirs(args.out, exist_ok=True)
    entries = [e for _, _, es in runs for e in es]
    plot = curve_plot(entries, os.path.join(args.out, "replay-log-every.png"))
    sources += [os.path.relpath(args.hta)] if args.hta else []
    text = page(
        runs, args.what_if, hta_version, hta, os.path.basename(plot) if plot else None, sources
    )
    write_atomic(os.path.join(args.out, "replay.md"), text)
    print(f"wrote {os.path.join(args.out, 'replay.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
