"""The trace pages put together: per trace (or folder of ranks) ./attribute's text verbatim
under the plots drawn from its --json, and the index over them."""

import os
import re

from analysis.fmt import fmt_us
from analysis.tables import markdown_table
from analysis.trace_pages import prose, stats

INDEX_HEADER = [
    "trace",
    "rank",
    "steps",
    "GPU events",
    "regime",
    "wall us",
    "syncs",
    "sync us",
    "blocking copies",
    "blocking copy us",
    "median us per sync",
]


def file_stem(path):
    """A trace file's or folder's name without .json[.gz] (and .pt.trace)."""
    base = os.path.basename(os.path.normpath(path))
    return re.sub(r"(\.pt\.trace)?\.json(\.gz)?$", "", base)


def page_stem(path, taken):
    """File name of an input's page: its name without .json[.gz]; a clash gets a number."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", file_stem(path)) or "trace"
    stem, k = base, 2
    while stem in taken:
        stem, k = f"{base}-{k}", k + 1
    taken.add(stem)
    return stem


def plot_stem(stem, trace, ranks):
    """The plots' name: the page's, with the rank file's name after it when the page has several."""
    return f"{stem}-{file_stem(trace['file'])}" if ranks > 1 else stem


def plot_lines(name, trace, queue_plot):
    """A rank's step plot and, when it has a timeline, its queue plot, each with its caption."""
    lines = [f"![per-step breakdown]({name}-steps.png)", "", prose.step_caption(trace), ""]
    if queue_plot:
        lines += [f"![launch-queue depth]({name}-queue.png)", "", prose.queue_caption(trace), ""]
    return lines


def trace_page(stem, path, text, doc, json_link=None):
    """A page: ./attribute's text in a fenced block under the plots of each rank (drawn by
    trace_report), then what one sync cost here."""
    lines = [f"# `./attribute {path}`", ""]
    source = f" ([{os.path.basename(json_link)}]({json_link}))" if json_link else ""
    lines += [
        "The plots are drawn from the same run's `--json`"
        + source
        + "; below them, `./attribute`'s "
        "text as it prints it. Page written by `python -m analysis.trace_report`.",
        "",
    ]
    ranks = doc["traces"]
    for trace in ranks:
        if len(ranks) > 1:
            lines += [f"## Rank {trace['rank']}: `{trace['file']}`", ""]
        lines += plot_lines(plot_stem(stem, trace, len(ranks)), trace, stats.timeline_gpus(trace))
    lines += ["## `./attribute`'s text", "", "```text", text.rstrip("\n"), "```"]
    cost = stats.sync_cost([(stem, doc)])
    if cost:
        lines += ["", "## What one synchronisation call cost here", ""]
        lines += prose.paragraphs(prose.sync_cost_markdown(cost))
    return "\n".join(lines) + "\n"


def index_table(entries):
    """One row per trace (a folder's ranks each): entries are (page stem, trace) pairs."""
    rows = []
    for stem, trace in entries:
        t = trace["total"]
        rows.append(
            [
                f"[{stem}]({stem}.md)",
                str(trace["rank"]),
                str(len(trace["steps"])),
                "yes" if trace["gpu_events"] else "no",
                t["queue"]["regime"],
                fmt_us(t["wall_us"]),
                str(t["syncs"]),
                fmt_us(t["sync_api_us"]),
                str(t["blocking_copies"]),
                fmt_us(t["blocking_copy_us"]),
                fmt_us(stats.median_sync_us(trace)),
            ]
        )
    return markdown_table(INDEX_HEADER, rows)


def index_page(entries, cost, queue_figure=None):
    """The index: one row per trace, the queue figure when there is one (queue_figure: (file,
    deep case, empty case), as stats.queue_cases picks them) and what one sync cost."""
    lines = ["# Traces read by `./attribute`", "", prose.INDEX_INTRO, ""]
    lines += index_table(entries) + ["", prose.INDEX_DEFINITIONS, ""]
    if queue_figure:
        lines += [prose.QUEUE_FIGURE_HEAD, ""] + prose.queue_figure_lines(*queue_figure) + [""]
    lines += ["## What one synchronisation call cost on these GPUs", ""]
    lines += prose.paragraphs(prose.sync_cost_markdown(cost))
    return "\n".join(lines) + "\n"
