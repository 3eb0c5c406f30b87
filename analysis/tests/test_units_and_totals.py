"""Two classes of defect a reader catches and a figure check does not:

- a unit that differs between a plot's caption or title and its axes (trace pages said "All in
  microseconds" under axes in ms or s);
- a table whose rows do not add up to the total it shows (the attribution table's phases fell
  short of the traced epoch with nothing to say where the rest went).

Each check runs on what the code writes now: the report built from the committed results, the
synthetic GPU folder (the GPU paths), and the trace pages built from the real traces.
"""

import os
import re
import shutil

import pytest

from analysis import figures, plots, report, trace_report
from analysis.tests.test_report import gpu_folder
from analysis.trace_pages import prose

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "results", "cpu-intel-xeon-processor-2c")
TRACES = os.path.join(ROOT, "tests", "data", "traces")

# A unit's names as captions and axis labels write them. "95% CI" names a confidence level,
# not a quantity in percent, so it is removed before looking for units.
UNITS = {
    "ns": r"\bns\b|nanoseconds?",
    "us": r"\bus\b|µs|microseconds?",
    "ms": r"\bms\b|milliseconds?",
    "s": r"\(s\)|\bseconds?\b|(?<=\d )s\b",
    "%": r"%",
}


def units_in(text):
    text = re.sub(r"\d+% CI", "", text)
    return {u for u, pattern in UNITS.items() if re.search(pattern, text)}


def test_units_in_reads_the_ways_the_report_writes_units():
    assert units_in("ms (milliseconds) in the step") == {"ms"}
    assert units_in("loop time of the run (s)") == {"s"}
    assert units_in("2.93 s, the 95% CI") == {"s"}
    assert units_in("extra time per .item(), % of an epoch") == {"%"}
    assert units_in("All in microseconds") == {"us"}
    assert units_in("us per epoch (median; log)") == {"us"}
    assert units_in("rows per batch; the GPU's view") == set()


@pytest.fixture
def saved_figures(monkeypatch):
    """Every figure saved while the fixture is active: path -> (axis labels, titles)."""
    seen = {}
    original = figures.save_figure

    def record(fig, path):
        labels = [t for ax in fig.axes for t in (ax.get_xlabel(), ax.get_ylabel())]
        titles = [ax.get_title() for ax in fig.axes] + (
            [fig._suptitle.get_text()] if fig._suptitle else []
        )
        seen[os.path.basename(path)] = (labels, titles)
        return original(fig, path)

    monkeypatch.setattr(figures, "save_figure", record)
    monkeypatch.setattr(plots, "save_figure", record)
    return seen


def captions(markdown):
    """{image file: the first paragraph after its image line} of one page."""
    lines = markdown.splitlines()
    out = {}
    for i, line in enumerate(lines):
        m = re.match(r"!\[[^\]]*\]\(([^)]+)\)", line.strip())
        if m:
            rest = [l for l in lines[i + 1 :] if l.strip()]
            out[m.group(1)] = rest[0] if rest and not rest[0].startswith(("#", "|", "![")) else ""
    return out


def check_units(pages, seen):
    """Every figure on the pages has a caption, and every unit its caption or titles name is
    a unit on one of its axes."""
    problems = []
    for page in pages:
        for image, caption in captions(page).items():
            assert image in seen, f"{image}: on a page but not drawn in this run"
            labels, titles = seen[image]
            axis_units = set().union(*(units_in(l) for l in labels))
            if not caption:
                problems.append(f"{image}: no caption under it")
            named = units_in(caption) | set().union(*(units_in(t) for t in titles))
            if not named <= axis_units:
                problems.append(
                    f"{image}: caption/title name {sorted(named - axis_units)} but its axes are in "
                    f"{sorted(axis_units)} ({labels}; caption: {caption!r})"
                )
    return problems


def trace_pages(
    out,
    names=(
        "a100-alexnet-syncs",
        "a100-cuda-graphs-6streams",
        "gp100-steps-annotations",
        "cpu-only",
    ),
):
    """The pages of traces whose axes come out in s, ms and us, and one with no GPU events."""
    assert (
        trace_report.main(
            [os.path.join(TRACES, f"{n}.json.gz") for n in names] + ["--out", str(out)]
        )
        == 0
    )
    return [p.read_text() for p in sorted(out.glob("*.md")) if p.name != "index.md"]


def test_every_plot_caption_names_the_units_of_its_axes(tmp_path, saved_figures):
    folder = tmp_path / "cpu"
    shutil.copytree(
        RESULTS, folder, ignore=shutil.ignore_patterns("*.png", "REPORT.md", "table.txt")
    )
    assert report.main([str(folder)]) == 0
    (tmp_path / "gpu").mkdir()
    assert report.main([str(gpu_folder(tmp_path / "gpu"))]) == 0
    pages = [(folder / "REPORT.md").read_text(), (tmp_path / "gpu" / "REPORT.md").read_text()]
    pages += trace_pages(tmp_path / "traces")
    problems = check_units(pages, saved_figures)
    assert not problems, "\n".join(problems)
    assert {
        "item_calls.png",
        "batch_sweep.png",
        "attribution.png",
        "ladder.png",
        "rung_sweep.png",
        "cpu-only-steps.png",
        "a100-alexnet-syncs-steps.png",
    } <= set(saved_figures)


def test_a_caption_in_another_unit_than_its_axes_fails(tmp_path, saved_figures, monkeypatch):
    """The check itself: the trace pages' old caption ('All in microseconds' under an axis in ms
    or s) is caught."""
    monkeypatch.setattr(
        prose, "step_caption", lambda trace: "Left: host; right: GPU. All in microseconds."
    )
    problems = check_units(trace_pages(tmp_path), saved_figures)
    assert any("a100-cuda-graphs-6streams-steps.png" in p and "['us']" in p for p in problems), (
        problems
    )
    assert not any("gp100" in p for p in problems)  # that one's axes are in us


def markdown_tables(text):
    """[(header, rows)] of every Markdown table in a page, cells stripped."""
    out, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            header = [c.strip() for c in lines[i].strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            out.append((header, rows))
        else:
            i += 1
    return out


def number(cell):
    return float(cell.replace(",", "").split()[0])


def attribution_totals(text):
    """Rows of the traced-pass table whose phases and `outside the phases` do not add up to
    `traced us` (one decimal each: a rounding allowance of 0.05 per cell)."""
    table = next((h, rows) for h, rows in markdown_tables(text) if "traced us" in h)
    header, rows = table
    parts = [
        header.index(f"{p} us") for p in ("forward", "loss", "zero_grad", "backward", "step", "log")
    ]
    assert "outside the phases us" in header, (
        "no column says where the rest of the traced epoch went"
    )
    parts.append(header.index("outside the phases us"))
    total = header.index("traced us")
    return [
        r
        for r in rows
        if abs(sum(number(r[i]) for i in parts) - number(r[total])) > 0.05 * (len(parts) + 1)
    ]


def flops_total(text):
    """(parts' sum, total) of the FLOPs sentence: 'is 46,473 floating-point operations, ...:
    forward 18,000, loss 1,680, backward 26,627, update 166.'"""
    m = re.search(
        r"is ([\d,]+) floating-point operations.*?: (forward [\d,]+, loss [\d,]+, backward [\d,]+, "
        r"update [\d,]+)",
        text,
    )
    parts = [int(x.replace(",", "")) for x in re.findall(r"[a-z]+ ([\d,]+)", m.group(2))]
    return sum(parts), int(m.group(1).replace(",", ""))


def test_tables_add_up_to_the_totals_they_show(tmp_path):
    folder = tmp_path / "cpu"
    shutil.copytree(
        RESULTS, folder, ignore=shutil.ignore_patterns("*.png", "REPORT.md", "table.txt")
    )
    assert report.main([str(folder)]) == 0
    text = (folder / "REPORT.md").read_text()
    assert attribution_totals(text) == []
    parts, total = flops_total(text)
    assert parts == total


def test_a_table_that_does_not_add_up_fails():
    """The check itself: an attribution table without `outside the phases`."""
    short = (
        "| device | traced us | forward us | loss us | zero_grad us | backward us | step us | log us | "
        "outside the phases us |\n|---|\n| cpu | 92.9 | 14.4 | 9.8 | 1.0 | 60.8 | 3.9 | 0.4 | 0.0 |"
    )
    assert len(attribution_totals(short)) == 1
