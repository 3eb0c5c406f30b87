"""The trace pages put together: one page per trace and the index, from the prose, the tables and
the plots' file names (the plots themselves are drawn by plots)."""

import os
import re

from analysis.trace_pages import prose, stats, tables


def page_stem(file, taken):
    """File name of a trace's page: the trace's name without .json[.gz]; a per-rank file
    (rank-0.json.gz) gets its folder's name in front; a clash gets a number."""
    base = os.path.basename(file)
    base = re.sub(r"(\.pt\.trace)?\.json(\.gz)?$", "", base)
    if re.match(r"^rank[-_]?\d+", base):
        base = f"{os.path.basename(os.path.dirname(file)) or 'trace'}-{base}"
    base = re.sub(r"[^A-Za-z0-9._-]", "_", base) or "trace"
    stem, k = base, 2
    while stem in taken:
        stem, k = f"{base}-{k}", k + 1
    taken.add(stem)
    return stem


def blocking_section(trace):
    """The blocking calls by cause: the intro, one line per cause, the table and the calls by API.
    Raises stats.TablesDoNotAddUp when the listed calls miss the totals."""
    if not trace["syncs_by_cause"]:
        return [prose.NO_BLOCKING_CALL]
    stats.check_blocking_totals(trace)
    lines = [prose.blocking_intro(trace), ""]
    lines += [f"- {prose.cause_line(c)}" for c in trace["syncs_by_cause"]]
    lines.append("")
    lines += tables.cause_table(trace)
    return lines + ["", prose.by_call_line(trace)]


def trace_page(trace, stem, plot_name, source, queue_plot=None):
    """queue_plot: the file of the queue-depth plot, None when the trace has no timeline."""
    lines = prose.page_head(trace, source)
    if not trace["gpu_events"]:
        lines += [prose.NO_GPU_EVENTS, ""]
    lines += [prose.whole_trace_line(trace), "", prose.regime_line(trace), ""]
    if trace["unmatched_correlations"]:
        lines += [prose.UNMATCHED.format(n=trace["unmatched_correlations"]), ""]
    if trace["warnings"]:
        lines += ["Warnings from `./attribute`:", ""] + [f"- {w}" for w in trace["warnings"]] + [""]
    lines += [
        "## Per step",
        "",
        f"![per-step breakdown]({plot_name})",
        "",
        prose.step_caption(trace),
        "",
    ]
    lines += tables.step_table(trace) + prose.step_table_notes(trace)
    if queue_plot:
        lines += [
            "",
            "## The launch queue over one step",
            "",
            f"![launch-queue depth]({queue_plot})",
            "",
            prose.queue_caption(trace),
        ]
    lines += ["", "## Blocking calls and what caused them", ""] + blocking_section(trace)
    cost = stats.sync_cost([(stem, {"traces": [trace]})])
    if cost:
        lines += ["", "### What one synchronisation call cost here", ""] + prose.paragraphs(
            prose.sync_cost_markdown(cost)
        )
    return "\n".join(lines) + "\n"


def index_page(entries, cost, queue_figure=None):
    """The index: one row per trace page (entries: (stem, trace)), the queue figure when there is
    one (queue_figure: (file, deep case, empty case), as stats.queue_cases picks them) and what
    one sync cost."""
    lines = ["# Traces read by `./attribute`", ""] + prose.INDEX_INTRO
    lines += tables.index_table(entries)
    lines += ["", prose.INDEX_DEFINITIONS, ""]
    if queue_figure:
        lines += [prose.QUEUE_FIGURE_HEAD, ""] + prose.queue_figure_lines(*queue_figure) + [""]
    lines += [
        "## What one synchronisation call cost on these GPUs",
        "",
    ] + prose.paragraphs(prose.sync_cost_markdown(cost))
    return "\n".join(lines) + "\n"
