"""Pages of `./attribute` over traces: per trace (a folder of ranks: one page) its text as it
prints it, under plots drawn from its --json (per step, where the host's and the GPU's time went;
the launch queue's depth over one step) and what one blocking sync cost there; and an index (with
a deep queue set beside an empty one when the traces hold both). `stats.sync_cost` is also the
main report's figure.

    python -m analysis.trace_report TRACE... [--json-out DIR] [--out results/traces/]

Each trace is read by the iris_trace package, which runs the library's one run of ./attribute,
so the text and the JSON are ./attribute's own. --json-out writes each input's --json document
there (the main report reads them). Every input is read and checked before anything is written:
a missing or unreadable trace, or blocking calls that do not add up to their totals, exit 2
naming the file and leave --out as it was. Each file is written to a temporary file and renamed.

The parts live in analysis/trace_pages/ (stats, prose, plots, pages); this is the command line.
"""

import argparse
import os
import sys

import iris_trace

from analysis.atomic_write import write_atomic
from analysis.trace_pages import pages, plots, prose, stats

QUEUE_FIGURE = "queue-depth.png"  # the index's deep queue beside an empty one


def read_all(paths):
    """[(path, result, document)], every trace read and checked before anything is written."""
    runs = []
    for path in paths:
        result = iris_trace.attribute(path)
        doc = result.to_dict()
        for trace in doc["traces"]:
            stats.check_blocking_totals(trace)
        runs.append((path, result, doc))
    return runs


def draw(out, stem, doc):
    """Each rank's step plot, and its queue plot when it has a timeline (no GPU work: none)."""
    for trace in doc["traces"]:
        name = pages.plot_stem(stem, trace, len(doc["traces"]))
        plots.step_plot(trace, name, os.path.join(out, f"{name}-steps.png"))
        if stats.timeline_gpus(trace):
            plots.queue_plot(trace, name, os.path.join(out, f"{name}-queue.png"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+", help="trace files or folders of per-rank traces")
    ap.add_argument("--json-out", help="folder for each input's `./attribute --json` document")
    ap.add_argument(
        "--out", default="results/traces", help="folder for the pages (default results/traces)"
    )
    args = ap.parse_args(argv)
    try:
        runs = read_all(args.inputs)
    except (OSError, ValueError) as e:  # a missing trace, TraceError, TablesDoNotAddUp
        print(f"analysis.trace_report: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    taken, entries, docs = set(), [], []
    for path, result, doc in runs:
        stem = pages.page_stem(path, taken)
        json_link = None
        if args.json_out:
            os.makedirs(args.json_out, exist_ok=True)
            json_path = os.path.join(args.json_out, f"{pages.file_stem(path)}.json")
            result.save_json(json_path)
            json_link = os.path.relpath(json_path, args.out)
            docs.append((os.path.basename(json_path), doc))
        else:
            docs.append((stem, doc))
        draw(args.out, stem, doc)
        page = pages.trace_page(stem, path, str(result), doc, json_link)
        write_atomic(os.path.join(args.out, f"{stem}.md"), page)
        entries += [(stem, t) for t in doc["traces"]]
        print(f"wrote {os.path.join(args.out, stem + '.md')}")
    cost = stats.sync_cost(docs)
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
