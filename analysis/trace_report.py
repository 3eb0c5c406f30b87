"""Pages from `./attribute --json` output: one Markdown page per trace (the launch-queue regime,
a per-step stacked plot of where the step's time went, the per-step table, the queue's depth over
one step, the syncs grouped by the op that caused them) and an index page (with a deep queue set
beside an empty one when the traces hold both); plus `sync_cost`, what one blocking sync cost on
the traced GPUs, for the main report.

    python -m analysis.trace_report ATTRIBUTE_JSON... [--out results/traces/]

Every input file is read and checked before anything is written, so bad input (not JSON, a
missing or mistyped field) exits 2 with a message naming the file and the field, and leaves the
pages already in --out as they were. Each page and plot is written to a temporary file and
renamed. The schema is the one `./attribute --json` writes (analysis/attribute_json/schema.py;
its version is src/trace/export/attribute_json_version.txt, which ./attribute is built with).

One definition per figure (src/trace/analyze/blocking_calls.h): "synchronisation" is the
*Synchronize calls; "blocking copies" the copy calls that hold the host (a call without Async,
or an Async copy with pageable host memory); "non-blocking copy calls" the rest; "blocked" the
first two together. Every table's rows add up to the total it prints (checked here: a page is
not written when they do not), and "calls" counts API calls everywhere.

The pages' parts live in analysis/trace_pages/ (stats, tables, prose, plots, pages); this is the
command line.
"""

import argparse
import os
import sys

from analysis.atomic_write import write_atomic
from analysis.attribute_json.reader import AttributeJsonError, load_attribution
from analysis.trace_pages import pages, plots, prose, stats

QUEUE_FIGURE = "queue-depth.png"  # the index's deep queue beside an empty one


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="`./attribute --json` output files")
    ap.add_argument(
        "--out", default="results/traces", help="folder for the pages (default results/traces)"
    )
    args = ap.parse_args(argv)
    try:
        docs = [(p, load_attribution(p)) for p in args.inputs]  # all checked before any write
        for path, doc in docs:
            for t in doc["traces"]:
                stats.check_blocking_totals(t)  # rows that do not add up stop it here
    except (AttributeJsonError, stats.TablesDoNotAddUp) as e:
        print(f"analysis.trace_report: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    taken, entries = set(), []
    for path, doc in docs:
        for trace in doc["traces"]:
            stem = pages.page_stem(trace["file"], taken)
            plot = f"{stem}-steps.png"
            plots.step_plot(trace, stem, os.path.join(args.out, plot))
            queue_plot = None
            if stats.timeline_gpus(trace):  # no timeline (no GPU work): no plot and no link
                queue_plot = f"{stem}-queue.png"
                plots.queue_plot(trace, stem, os.path.join(args.out, queue_plot))
            write_atomic(
                os.path.join(args.out, f"{stem}.md"),
                pages.trace_page(trace, stem, plot, os.path.basename(path), queue_plot),
            )
            entries.append((stem, trace))
            print(f"wrote {os.path.join(args.out, stem + '.md')}")
    cost = stats.sync_cost([(os.path.basename(p), d) for p, d in docs])
    cases = stats.queue_cases(entries)
    queue_figure = None
    if cases:
        plots.queue_comparison_plot(*cases, os.path.join(args.out, QUEUE_FIGURE))
        queue_figure = (QUEUE_FIGURE, *cases)
    write_atomic(os.path.join(args.out, "index.md"), pages.index_page(entries, cost, queue_figure))
    print(f"wrote {os.path.join(args.out, 'index.md')}")
    for line in prose.sync_cost_markdown(cost):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
