"""The report's section on the Paired rows: every fitted quantity from whole runs beside the
same from paired short runs, and the verdicts the paired intervals allow (analysis.paired)."""

import os

from analysis import noise, paired, replay_prediction, report_tables, summary
from analysis.tables import markdown_table

HEADING = "## Measurements that conclude: paired, interleaved runs"
INTRO = (
    "Whole runs of one configuration after another spread {spread} on this machine, and its slow "
    "periods last seconds: they hit whole runs, so the fits above carry wide intervals. The `Paired` "
    "rows measure the same quantities from short runs ({epochs} epochs) of the configurations they "
    "compare, back to back in rounds, in one process, each round every configuration once in a "
    "rotating order; the estimate is the 20% trimmed mean over the rounds with Yuen's 95% interval, "
    "and a difference is taken round by round (a paired interval), so the drift both runs of a round "
    "share cancels in a difference, not in a level (one configuration's mean). Every interval treats "
    "the rounds, run back to back in one process, as independent. Rounds go on until every difference's interval is within {diff} us (item, replay, "
    "held_out) and every mean's within {rel} of it (item, batch), or the row's cap. Design and "
    "stopping rule: docs/experiment.md, *Measurements that conclude*."
)
NONE = "No Paired rows in this folder (`./bench --benchmark_filter=^Paired/`)."


def _rows_table(rows):
    body = []
    for p in rows:
        load = "-" if p.load[0] < 0 else f"{p.load[0]:.2f} -> {p.load[1]:.2f}"
        body.append(
            [
                p.device,
                p.group,
                str(len(p.configs)),
                str(p.rounds),
                f"{p.elapsed_s:.0f}",
                "met" if p.target_met else "NOT met (cap)",
                f"{p.probe_ratio:.2f}" + (" DISTURBED" if p.disturbed else ""),
                f"{100 * p.steal_share:.1f}%",
                load,
            ]
        )
    head = [
        "device",
        "row",
        "configurations",
        "rounds",
        "s",
        "target",
        "noise probe (x quietest)",
        "steal",
        "1-min load",
    ]
    return markdown_table(head, body)


def _quantities(rows, models):
    body = []
    for device in sorted({p.device for p in rows}):
        item = paired.find(rows, device, "item")
        m = next((x for x in models if x.device == device), None)
        if item is None:
            continue
        s, c = paired.per_item(item), paired.per_epoch(item)
        body.append(
            [
                device,
                "one `.item()`",
                report_tables.fit_cell(m, "per_item") if m else "-",
                s.text() + (" (holds 0)" if s.lo <= 0 <= s.hi else ""),
                f"{s.half_width():.2f} us",
            ]
        )
        body.append(
            [
                device,
                "one epoch, never logging",
                report_tables.fit_cell(m, "per_epoch") if m else "-",
                c.text(),
                f"{100 * c.half_width() / c.value:.2f}%",
            ]
        )
    head = ["device", "quantity", "whole runs (fit)", "paired", "paired half-width"]
    return markdown_table(head, body)


def _held_out(rows):
    """Each held-out configuration the paired rows measured, against its prediction: the one
    verdict the report gives it (the whole runs' section points here)."""
    body = []
    for device in sorted({p.device for p in rows}):
        item, held = paired.find(rows, device, "item"), paired.find(rows, device, "held_out")
        if item and held:
            s = paired.per_item(item)
            pred, rng, meas = paired.held_out_interval(held, s)
            body.append(
                [
                    f"{device} interval {meas.interval} print100 {meas.print100}",
                    f"{meas.us:.2f} [{meas.lo:.2f}, {meas.hi:.2f}]",
                    (
                        f"{pred:.2f} [{rng[0]:.2f}, {rng[1]:.2f}] (the never row beside it + the paired "
                        f"`.item()` cost x {meas.calls_per_epoch - held.configs[1].calls_per_epoch:.4f} "
                        "calls)"
                    ),
                    paired.verdict(pred, rng, meas).text,
                ]
            )
        b = paired.find(rows, device, "batch")
        got = paired.held_out_batch(b, summary.HELD_OUT_BATCH) if b else None
        if got:
            pred, rng, meas = got
            body.append(
                [
                    f"{device} batch {summary.HELD_OUT_BATCH}",
                    f"{meas.us:.1f} [{meas.lo:.1f}, {meas.hi:.1f}]",
                    (
                        f"{pred:.1f} [{rng[0]:.1f}, {rng[1]:.1f}] (the line through batches "
                        f"{', '.join(str(c.batch) for c in b.configs if c.batch != summary.HELD_OUT_BATCH)} run beside it)"
                    ),
                    paired.verdict(pred, rng, meas).text,
                ]
            )
    head = [
        "held out (us per epoch)",
        "paired: measured [95% CI]",
        "predicted [range]",
        "verdict",
    ]
    return markdown_table(head, body)


def _replay_verdict(saving, ci, row_us):
    """The replay's saving against the paired saving (a round-by-round difference, in which
    shared drift cancels), and whether this check can test the replay at all: not when the
    paired saving's interval holds 0, nor when the saving is far inside the verdicts' 10 %."""
    lo, hi = ci
    text = (
        "consistent (the replay's saving lies inside the paired saving's 95% CI)"
        if lo <= saving <= hi
        else "off (the replay's saving lies outside the paired saving's 95% CI)"
    )
    why = []
    if lo <= 0 <= hi:
        why.append("that interval holds 0")
    pct = 100 * saving / row_us
    if abs(pct) < noise.TIGHT_PCT:
        why.append(f"the saving is {pct:.1f}% of a row, inside the {noise.TIGHT_PCT:g}% criterion")
    if why:
        text += "; this check cannot test the replay: " + " and ".join(why)
    return text


def _replay(rows, folder):
    body = []
    for p in (r for r in rows if r.group == "replay"):
        path = os.path.join(folder, "replay", f"validation-{p.device}.json")
        if not os.path.exists(path):
            continue
        replayed, points, _, _ = replay_prediction._load(path)
        base = p.configs[0]
        for k, c in enumerate(p.configs[1:], start=1):
            if c.interval not in points:
                continue
            saving = replayed - points[c.interval]
            m, lo, hi = p.diff(k, 0)  # every-epoch minus this one: the saving measured
            pred = base.us - saving
            label = "never" if c.interval == 0 else str(c.interval)
            body.append(
                [
                    p.device,
                    label,
                    f"{saving:.3f}",
                    f"{m:+.3f} [95% CI {lo:+.3f}, {hi:+.3f}]",
                    f"{c.us:.2f} [{c.lo:.2f}, {c.hi:.2f}]",
                    f"{pred:.2f}",
                    _replay_verdict(saving, (lo, hi), c.us),
                ]
            )
    head = [
        "device",
        "interval",
        "replay: saving per epoch, us",
        "paired: saving per epoch, us",
        "paired: row us/epoch [95% CI]",
        "predicted us/epoch",
        "verdict",
    ]
    return markdown_table(head, body) if body else []


def section(rows, models, batch, folder, whole_spread):
    """Markdown lines; `rows` are the folder's bench rows, `whole_spread` words the whole runs'
    spread (the sweep table's)."""
    prs = paired.rows_of(rows)
    md = ["", HEADING, ""]
    if not prs:
        return md + [NONE, ""]
    epochs = sorted({int(r.counters["epochs_per_run"]) for r in rows if r.family == "Paired"})
    md += [
        INTRO.format(
            spread=whole_spread,
            epochs=" or ".join(map(str, epochs)),
            rel=f"{100 * max(p.rel_target for p in prs):g}%",
            diff=f"{max(p.diff_target_us for p in prs):g}",
        ),
        "",
    ]
    md += _rows_table(prs) + [""]
    md += ["The quantities the fits estimate, from whole runs and from the paired rows:", ""]
    md += _quantities(prs, models) + [""]
    held = _held_out(prs)
    if len(held) > 2:
        md += (
            [
                (
                    "The held-out configurations, each against its prediction (verdicts as above: *agrees* "
                    "when the prediction's range meets the measured interval and both are narrower than "
                    f"{noise.TIGHT_PCT:g}% of it):"
                ),
                "",
            ]
            + held
            + [""]
        )
    rep = _replay(prs, folder)
    if rep:
        md += (
            [
                (
                    "The replay's predictions (the every-epoch traced pass replayed with its `log` phase kept "
                    "less often, section above) against the paired rows: predicted row = the every-epoch "
                    "row run beside it minus the replay's saving; the verdict sets the replay's saving "
                    "against the paired saving, whose interval the round-by-round difference gives "
                    "(rounds taken as independent)."
                ),
                "",
            ]
            + rep
            + [""]
        )
    whole = [r for r in rows if r.family == "ItemSync" and "disturbed" in r.counters]
    hit = [r for r in whole if r.counters["disturbed"]]
    if whole:
        worst = max(whole, key=lambda r: r.counters.get("probe_ratio", 0))
        md += [
            (
                f"Whole runs measured while the machine was disturbed (`disturbed`: the noise probe or "
                f"the steal time over its bound, docs/experiment.md): {len(hit)} of the {len(whole)} "
                f"ItemSync repetitions; the worst probe {worst.counters['probe_ratio']:.2f}x its "
                f"quietest, in `{worst.name}` ({worst.seconds:.2f} s)."
            ),
            "",
        ]
    disturbed = [p for p in prs if p.disturbed]
    if disturbed:
        md += [
            "Rows measured while the noise probe or the steal time said the machine was disturbed: "
            + ", ".join(f"{p.device}-{p.group}" for p in disturbed)
            + ".",
            "",
        ]
    return md
