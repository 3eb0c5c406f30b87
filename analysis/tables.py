"""The article's table beside ours, as console text and as Markdown."""

import os

from analysis import article, noise, summary


def markdown_table(header, rows):
    """Lines of a Markdown table: header, rule, one line per row (cells already text)."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(r) + " |" for r in rows
    ]


def interval_label(interval):
    return "never" if interval == 0 else str(interval)


def article_values(device, interval, print100):
    """The post's figures for the configuration, as (seconds, label) pairs."""
    out = [
        (r.seconds, r.label)
        for r in article.RUNS
        if r.device == device and r.interval == interval and r.print100 == print100
    ]
    if device == "cuda" and print100 == 1:
        out += [(t, "table ('remaining')") for k, _, t in article.TABLE if k == interval]
    return out


HEADER = [
    "device",
    "print100",
    "interval",
    "records",
    ".item()",
    "ours s (median)",
    "spread",
    "above 0 calls s (mean) [95% CI]",
    "us/epoch",
    "article s",
]


def table_rows(stats, models):
    rows = []
    for c in stats:
        above = summary.above_zero_calls(models, c)
        if above is None:
            above_text = "n/a (no fit for this device and batch)"
        else:
            above_text = f"{above[0]:+.3f} {noise.mark(above[1], fmt='+.3f')}"
        art = (
            "; ".join(
                f"{s:.2f} ({label})"
                for s, label in article_values(c.device, c.interval, c.print100)
            )
            if c.epochs == article.EPOCHS
            else ""
        )
        rows.append(
            [
                c.device,
                str(c.print100),
                interval_label(c.interval),
                str(c.records),
                str(c.item_calls),
                f"{c.median_s:.3f}",
                "one run" if c.n < 2 else f"{c.spread_pct:.1f}% (n={c.n})",
                above_text,
                f"{c.us_per_epoch:.1f}",
                art or "-",
            ]
        )
    return rows


def render_text(stats, models):
    rows = table_rows(stats, models)
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(HEADER)
    ]
    line = lambda cells: "  ".join(
        c.rjust(w) if i not in (7, 9) else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
    )
    return "\n".join([line(HEADER), line(["-" * w for w in widths])] + [line(r) for r in rows])


def render_markdown(stats, models):
    return "\n".join(markdown_table(HEADER, table_rows(stats, models)))


def markdown_figure(alt, path, caption):
    """Lines that place a PNG already drawn at path (beside the page) with its caption."""
    return ["", f"![{alt}]({os.path.basename(path)})", "", f"*{caption}*", ""]
