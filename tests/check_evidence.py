#!/usr/bin/env python3
"""Every figure of a generated page as strong as its evidence: this finds those that are not.

Read: README.md and every results/*/REPORT.md (or the files named). A defect is printed as
FILE:LINE: what, exit 1:

- a spread or an interval for one run: `x% (n=1)`, a range `(a-b, n=1)`, or `n=1` in the same
  table cell or sentence as a `95% CI` or a `spread`; one run has no spread to show;
- a verdict (agrees, inconclusive, off) between figures of different kinds, in a table with a
  prediction and a measured column: an idle `.item()` (nothing queued) against one in the loop,
  which also waits out the queue, or a traced figure against an untraced one (tracing slows
  each launch); such a row says "not compared";
- a "price" or a "clean" figure whose sentence states no precision (a 95% CI or +-): a median
  of one pool of calls is neither;
- an interval on the fit's slope on a page that says the fit's runs allow none ("no CI: runs
  not independent");
- a spread called the tiny op's own on a page that says its repetitions are too few to judge
  stability;
- a ratio of 10x or more to three significant digits (69.1x): no run here is that precise.

`--self-test` plants each defect in a page of its own and checks each is caught and a clean
page passes, so this check cannot pass by reading nothing. Standard library only.
"""

import argparse
import pathlib
import re
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent

SPREAD_ONE = re.compile(r"\d%\s*\(n=1\)")
RANGE_ONE = re.compile(r"\(-?[\d.,]+\s*-\s*-?[\d.,]+,\s*n=1\)")
N_ONE = re.compile(r"\bn\s*=\s*1\b(?!\d)")
INTERVAL = re.compile(r"95% CI|\bspread\b")
VERDICT = re.compile(r"^\s*(agrees|inconclusive|off\b)")
IDLE = re.compile(r"idle")
IN_LOOP = re.compile(r"ItemSync|in-loop|in the loop|fit's slope|`item` ranges")
TRACED = re.compile(r"\btraced\b")
PRICE = re.compile(r"\bprice of\b|\bclean\b", re.IGNORECASE)
PRECISION = re.compile(r"95% CI|\+-|±")
SLOPE_CI = re.compile(
    r"fit's slope \[95% CI\]|-?[\d.]+ \[-?[\d.]+, -?[\d.]+\] the ItemSync fit's slope"
)
NO_FIT_CI = "no CI: runs not independent"
OWN_SPREAD = re.compile(r"own spread is \d")
TOO_FEW = "Too few repetitions to judge stability"
RATIO_DIGITS = re.compile(r"(?<![\d.])\d{2,}\.\d+x\b")


def pages(root):
    return [root / "README.md", *sorted((root / "results").glob("*/REPORT.md"))]


def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _kind(text):
    """(idle, in-loop, traced) as a cell's words say."""
    return (bool(IDLE.search(text)), bool(IN_LOOP.search(text)), bool(TRACED.search(text)))


def _verdict_defect(header, cells):
    """What makes a table row's verdict compare figures of different kinds, or None."""
    cols = {h.lower(): i for i, h in enumerate(header)}
    verdict = next((i for h, i in cols.items() if h.startswith("verdict")), None)
    pred = [i for h, i in cols.items() if h.startswith("predict")]
    meas = [i for h, i in cols.items() if h.startswith("measured")]
    if verdict is None or not pred or not meas or len(cells) != len(header):
        return None
    if not VERDICT.search(cells[verdict]):
        return None
    p = _kind(" ".join(cells[i] for i in pred))
    m = _kind(" ".join(cells[i] for i in meas))
    if (p[0] and m[1] and not m[0]) or (m[0] and p[1] and not p[0]):
        return "a verdict between an idle figure and an in-loop one"
    if p[2] != m[2]:
        return "a verdict between a traced figure and an untraced one"
    return None


def _one_run_defects(unit):
    if SPREAD_ONE.search(unit):
        return "a spread for one run (n=1)"
    if RANGE_ONE.search(unit):
        return "a range for one run (n=1)"
    if N_ONE.search(unit) and INTERVAL.search(unit):
        return "an interval or spread beside n=1"
    return None


def _strength_defects(unit, page):
    """Words or digits stronger than the evidence, some judged against the whole page."""
    if PRICE.search(unit) and not PRECISION.search(unit):
        return "a 'price' or 'clean' figure without a stated precision"
    if NO_FIT_CI in page and SLOPE_CI.search(unit):
        return "an interval on the fit's slope where the page says its runs allow none"
    if TOO_FEW in page and OWN_SPREAD.search(unit):
        return "a spread stated where the page says the repetitions are too few to judge"
    if RATIO_DIGITS.search(unit):
        return "a ratio of 10x or more to three significant digits"
    return None


def check_page(path):
    """[(line number, what)] of one page."""
    out = []
    header = None
    page = path.read_text()
    for no, line in enumerate(page.splitlines(), start=1):
        if line.lstrip().startswith("|"):
            cells = _cells(line)
            if header is None:
                header = cells
                continue
            if all(set(c) <= set("-: ") for c in cells):
                continue
            units = cells
            what = _verdict_defect(header, cells)
            if what:
                out.append((no, what))
        else:
            header = None
            units = re.split(r"(?<=[.;])\s+", line)
        for unit in units:
            what = _one_run_defects(unit) or _strength_defects(unit, page)
            if what:
                out.append((no, what))
                break
    return out


def check(paths, root):
    bad = 0
    for path in paths:
        for no, what in check_page(path):
            rel = path.relative_to(root) if path.is_relative_to(root) else path
            print(f"{rel}:{no}: {what}")
            bad += 1
    return bad


PLANTED = {
    "spread.md": "| device | spread |\n|---|---|\n| cuda | 0.0% (n=1) |\n",
    "range.md": "| run | ours |\n|---|---|\n| GPU | 15.840 (15.840-15.840, n=1) |\n",
    "ci.md": "GPU 610.6 us [95% CI 543.2, 678.0], fitted over 12 runs (n=1 each).\n",
    "idle_traced.md": (
        "| device | prediction | predicted | measured | verdict |\n|---|---|---|---|---|\n"
        "| cuda | us/.item() = Sync/item_idle | 9.40 [9.28, 9.53] | 52.59 [32.75, 87.33] traced "
        "host time in `item` ranges | off by -82.1% (the ranges do not meet) |\n"
    ),
    "idle_loop.md": (
        "| device | prediction | predicted | measured | verdict |\n|---|---|---|---|---|\n"
        "| cuda | us/.item() = Sync/item_idle | 9.40 | 70.27 the ItemSync fit's slope | "
        "inconclusive (the measured range holds 0) |\n"
    ),
    "untraced_traced.md": (
        "| device | prediction | predicted | measured | verdict |\n|---|---|---|---|---|\n"
        "| cpu | us/.item() = one tiny op | 0.50 | 1.45 traced host time | inconclusive (-65%) |\n"
    ),
    "price.md": (
        "With nothing queued, 32 calls: median 4.5 us per call, the price of the "
        "synchronisation itself.\n"
    ),
    "slope_ci.md": (
        "| device | per .item() |\n|---|---|\n| cpu | -6.97 us (no CI: runs not independent) |\n\n"
        "| device | prediction | predicted | measured | verdict |\n|---|---|---|---|---|\n"
        "| cpu | us/.item() = one tiny op | 1.28 | -6.97 [-23.42, 9.47] the ItemSync fit's slope "
        "[95% CI] | inconclusive (the measured range holds 0) |\n"
    ),
    "own_spread.md": (
        "**Too few repetitions to judge stability** (71 primitives, at most n=2).\n\n"
        "| device | reason |\n|---|---|\n| cuda | nested calls; the tiny op's own spread is 0% |\n"
    ),
    "ratio.md": "- Target: fused CPU loop >= 35x LibTorch eager: met (98.7x).\n",
}
CLEAN = (
    "| device | spread | prediction | predicted | measured | verdict |\n|---|---|---|---|---|---|\n"
    "| cuda | one run | us/.item() = Sync/item_idle | 9.40 | 52.59 traced host time | not compared "
    "(figures of different kinds) |\n"
    "| cpu | 7.0% (n=3) | us/epoch = 86 ops x 0.50 us | 43.37 | 78.68 ItemSync never-logging | "
    "off by -44.9% (the ranges do not meet) |\n\n"
    "GPU 567 us (one run each); the fit: 78.33 us [95% CI 76.96, 79.70] over 36 runs (n=3 each).\n"
    "The fused loop: 99x (one run); eager 1.5x. A miss says the price per row is not one number.\n"
    "A sync: 4.5 us, the median of 32 calls (no spread); the price of a launch: 4.6 us [95% CI "
    "4.5, 4.7].\n"
)


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        missed = []
        for name, text in PLANTED.items():
            (root / name).write_text(text)
            if not check_page(root / name):
                missed.append(name)
        (root / "clean.md").write_text(CLEAN)
        flagged = check_page(root / "clean.md")
    for name in missed:
        print(f"self-test: the planted defect in {name} was not caught")
    for no, what in flagged:
        print(f"self-test: the clean page was flagged at line {no}: {what}")
    ok = not missed and not flagged
    print("self-test: " + ("PASS" if ok else "FAIL") + f" ({len(PLANTED)} planted defects)")
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", type=pathlib.Path, help="default: README and REPORTs")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    paths = [p.resolve() for p in args.pages] or pages(REPO)
    bad = check(paths, REPO)
    print(f"{len(paths)} pages, {bad} figures stated more strongly than their evidence")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
