"""The replay page: `./attribute --what-if` on the real traces (results/traces/replay.md and its
PNGs): per window the measured time, the unchanged replay, the replay with typical delays and HTA
0.5.0's critical path; the replay's accuracy targets per trace and what a miss lacks; the what-ifs'
savings; and the log-every curves (predicted step time against the syncs kept) with the words
that say whether each is linear and why.

    python -m analysis.replay_report REPLAY_JSON... [--hta results/traces/hta-critical-path.json]
                                     [--out results/traces]

REPLAY_JSON: files of `./attribute --json F --what-if ...` (experiments/replay_traces.sh makes
them). Every input is read and checked before anything is written: bad input exits 2 with the
file and the field, and the page and plots already in --out stay as they were. The page and each
PNG are written to a temporary file and renamed.
"""

import argparse
import os
import re
import sys

from analysis.atomic_write import write_atomic
from analysis.attribute_json.reader import AttributeJsonError, get, load_replay, read_json
from analysis.fmt import fmt_change, fmt_us
from analysis.tables import markdown_table


def load_hta(path):
    """experiments/hta_critical_path.py's document: {(stem, rank): [rows]} (rows checked)."""
    doc = read_json(path)
    version = get(path, doc, "hta_version", str, "top level")
    out = {}
    for stem, t in get(path, doc, "traces", dict, "top level").items():
        if "error" in t:
            out[(stem, None)] = t["error"]
            continue
        for rank, rows in get(path, t, "ranks", dict, f"traces.{stem}").items():
            for i, row in enumerate(rows):
                w = f"traces.{stem}.ranks.{rank}[{i}]"
                get(path, row, "window_us", float, w)
                get(path, row, "ok", bool, w)
                if row.get("critical_path_us") is not None:
                    get(path, row, "critical_path_us", float, w)
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


def bound_text(bound, total):
    if not bound or total <= 0:
        return "-"
    return ", ".join(f"{b['resource']} {100 * b['us'] / total:.0f}%" for b in bound[:2])


def replay_rows(entries, hta):
    """One row per window of every trace: measured, replayed, typical, HTA."""
    rows = []
    for name, r, key in entries:
        hrows = hta.get(key) if hta else None
        if hrows is None and hta and (key[0], None) in hta:
            hrows = hta[(key[0], None)]
        windows = r["replay"]["windows"]
        matched = match_hta(windows, hrows)
        for w, t, h in zip(windows, r["typical_delays"]["windows"], matched):
            m = w["measured_us"]
            if h is None:
                cp = "HTA failed: " + hrows.split(":")[0] if isinstance(hrows, str) else "-"
                ratio = "-"
            elif not h["ok"] or h.get("critical_path_us") is None:
                cp, ratio = "HTA failed: " + str(h.get("error") or "no path").split(":")[0], "-"
            else:
                cp, ratio = (
                    fmt_us(h["critical_path_us"]),
                    f"{h['critical_path_us'] / m:.2f}" if m else "-",
                )
            rows.append(
                [
                    name,
                    w["name"],
                    fmt_us(m),
                    fmt_us(w["replayed_us"]),
                    fmt_change(w["error"]),
                    fmt_us(t["predicted_us"]),
                    fmt_change(t["error"]),
                    cp,
                    ratio,
                    bound_text(w["bound"], w["replayed_us"]),
                ]
            )
    return rows


def target_rows(entries):
    rows = []
    for name, r, _ in entries:
        a, t = r["replay"], r["typical_delays"]
        goal = "median <= 2%, every step <= 5%" if r["windows"] == "steps" else "span <= 5%"
        rows.append(
            [
                name,
                f"{len(a['windows'])} {'steps' if r['windows'] == 'steps' else '(whole trace)'}",
                goal,
                f"{fmt_change(a['median_error'], False)} / {fmt_change(a['max_error'], False)}",
                "met" if a["target_met"] else "**not met**",
                f"{fmt_change(t['median_error'], False)} / {fmt_change(t['max_error'], False)}",
                "met" if t["target_met"] else "**not met**",
            ]
        )
    return rows


def what_if_rows(entries):
    rows = []
    for name, r, _ in entries:
        for s in r["what_ifs"]:
            if s["name"].startswith("log-every="):
                continue  # on the curves
            tot = s["total"]
            saving = tot["replayed_us"] - tot["predicted_us"]
            rows.append(
                [
                    name,
                    f"`{s['name']}`",
                    fmt_us(tot["replayed_us"]),
                    fmt_us(tot["predicted_us"]),
                    fmt_us(saving),
                    fmt_change(saving / tot["replayed_us"] if tot["replayed_us"] else 0.0),
                    bound_text(tot["bound"], tot["predicted_us"]),
                ]
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


def page(entries, hta_version, hta, plot_name, sources):
    lines = [
        "# Replay and what-ifs: `./attribute --what-if` on the real traces",
        "",
        "Each trace replayed from its records (the graph and its rules: `docs/what-if.md`): per window the "
        "measured time, the unchanged replay (every recorded duration and delay), the replay with typical delays "
        "(every delay between resources its kind's median: how much the dependencies alone explain), and Holistic "
        f"Trace Analysis {hta_version or '(not given)'}'s critical-path length for the same window (HTA has no replay; its critical "
        "path is its nearest figure). Written by `python -m analysis.replay_report` from "
        + ", ".join(f"`{s}`" for s in sources)
        + "; regenerate with `experiments/replay_traces.sh`.",
        "",
    ]
    lines += ["## Replay against the measurement", ""]
    lines += markdown_table(
        [
            "trace",
            "window",
            "measured us",
            "replayed us",
            "error",
            "typical-delay replay us",
            "error",
            "HTA critical path us",
            "HTA / measured",
            "critical path of the replay",
        ],
        replay_rows(entries, hta),
    )
    lines += [
        "",
        "## Targets (median error <= 2% and every step within 5%; without steps, the span within 5%)",
        "",
    ]
    lines += markdown_table(
        [
            "trace",
            "windows",
            "target",
            "replay median / max error",
            "replay",
            "typical delays median / max",
            "typical delays",
        ],
        target_rows(entries),
    )
    notes = [(name, r["notes"]) for name, r, _ in entries if r["notes"]]
    if notes:
        lines += [
            "",
            "Where a target is missed, what the trace lacks (from the graph: what the rules had to guess):",
            "",
        ]
        for name, ns in notes:
            lines += [f"- **{name}**: " + "; ".join(ns) + "."]
    lines += [
        "",
        "## What-ifs",
        "",
        "Saving = unchanged replay minus the what-if, over the steps until the GPU work queued in them is done "
        "(or over the whole trace): the replay's own error does not count in it.",
        "",
    ]
    lines += markdown_table(
        ["trace", "what if", "replayed us", "predicted us", "saving us", "saving", "critical path"],
        what_if_rows(entries),
    )
    lines += ["", "## The article's question: step time against the number of syncs kept", ""]
    if plot_name:
        lines += [f"![log-every curves]({plot_name})", ""]
    for name, r, _ in entries:
        for c in r["log_every"]:
            pts = "; ".join(
                f"{p['every']}: {fmt_us(p['predicted_us'])} us"
                + (" (extrapolated)" if p["extrapolated"] else "")
                for p in c["points"]
            )
            lines += [
                f"- **{name}** (`{c['what_if']}`, {c['selector']}, {c['sites']} in the trace): {pts}. {c['why']}"
            ]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="`./attribute --what-if --json` output files")
    ap.add_argument("--hta", help="experiments/hta_critical_path.py's hta-critical-path.json")
    ap.add_argument(
        "--out", default="results/traces", help="folder for replay.md (default results/traces)"
    )
    args = ap.parse_args(argv)
    try:
        docs = [(p, load_replay(p)) for p in args.inputs]  # all checked before anything is written
        hta_version, hta = load_hta(args.hta) if args.hta else (None, {})
    except AttributeJsonError as e:
        print(f"analysis.replay_report: {e}", file=sys.stderr)
        return 2
    entries = [
        (trace_name(r["file"], r["rank"]), r, hta_key(r["file"], r["rank"]))
        for _, d in docs
        for r in d["replays"]
    ]
    os.makedirs(args.out, exist_ok=True)
    plot = curve_plot(entries, os.path.join(args.out, "replay-log-every.png"))
    text = page(
        entries,
        hta_version,
        hta,
        os.path.basename(plot) if plot else None,
        [os.path.relpath(p) for p, _ in docs] + ([os.path.relpath(args.hta)] if args.hta else []),
    )
    write_atomic(os.path.join(args.out, "replay.md"), text)
    print(f"wrote {os.path.join(args.out, 'replay.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
