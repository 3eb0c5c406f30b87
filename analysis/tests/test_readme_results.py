"""README's numbers come from their sources, and its links and docs/'s lead somewhere.

- The results block of README.md is what `python -m analysis.readme_results` writes now from the
  committed results: a README figure that is not in its source fails here. In a clone whose
  results a scripts/reproduce.sh run has replaced (README's first command, then its second),
  the block is not this machine's to match: those two tests skip, saying so.
- Every relative link in README.md and docs/*.md points to a file or folder that exists.
"""

import difflib
import glob
import os
import pathlib
import re
import subprocess

import pytest

from analysis import readme_results

ROOT = readme_results.ROOT


def sources_changed():
    """The block's source files that differ from the last commit (git status lines), or []
    where git cannot tell (no git, not a clone)."""
    rel = [os.path.relpath(p, ROOT) for p in readme_results.SOURCES]
    try:
        p = subprocess.run(
            ["git", "-C", ROOT, "status", "--porcelain", "--", *rel],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return []
    return p.stdout.splitlines() if p.returncode == 0 else []


CHANGED = sources_changed()
committed_results = pytest.mark.skipif(
    bool(CHANGED),
    reason="README's results block is checked against the committed results; files it reads "
    f"changed in this clone ({len(CHANGED)}, a scripts/reproduce.sh run: `git status results`), "
    "first: " + (CHANGED[0].strip() if CHANGED else ""),
)


@committed_results
def test_readme_results_block_is_what_the_script_writes_now():
    text = pathlib.Path(readme_results.README).read_text()
    new = readme_results.render(text, readme_results.results_block())
    diff = "".join(
        difflib.unified_diff(
            text.splitlines(True), new.splitlines(True), "README.md", "from the results"
        )
    )
    assert new == text, (
        "README.md's results block differs from what analysis.readme_results computes from the "
        "committed results; run `python -m analysis.readme_results`:\n" + diff
    )


@committed_results
def test_check_fails_with_a_diff_on_an_edited_figure_and_passes_once_rewritten(tmp_path, capsys):
    text = pathlib.Path(readme_results.README).read_text()
    start = text.index(readme_results.BEGIN)
    edited = text[:start] + text[start:].replace("roughly 50 us", "roughly 40 us", 1)
    assert edited != text
    copy = tmp_path / "README.md"
    copy.write_text(edited)
    assert readme_results.main(["--check", "--readme", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "-| one `.item()` | roughly 40 us" in out and "+| one `.item()` | roughly 50 us" in out
    assert copy.read_text() == edited  # --check writes nothing
    assert readme_results.main(["--readme", str(copy)]) == 0
    assert copy.read_text() == text
    assert readme_results.main(["--check", "--readme", str(copy)]) == 0


def test_render_refuses_a_readme_without_markers():
    try:
        readme_results.render("no markers here\n", ["x"])
    except ValueError as e:
        assert "markers" in str(e)
    else:
        raise AssertionError("render accepted a README without markers")


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
CODE = re.compile(r"`[^`\n]*`")


def relative_links(path):
    """(target, line) of every relative Markdown link outside code, anchors stripped."""
    text = pathlib.Path(path).read_text()
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in LINK.finditer(CODE.sub("", line)):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            out.append((target.split("#")[0], n))
    return out


def test_every_relative_link_in_readme_and_docs_exists():
    pages = [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "*.md"))
    )
    assert len(pages) > 1
    missing = [
        f"{os.path.relpath(p, ROOT)}:{n}: {t}"
        for p in pages
        for t, n in relative_links(p)
        if not os.path.exists(os.path.join(os.path.dirname(p), t))
    ]
    assert not missing, "links to files that do not exist:\n" + "\n".join(missing)


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](page.md) [gone](nowhere.md#x) `[in code](nowhere2.md)` [web](https://example.org)\n"
        "```\n[fenced](nowhere3.md)\n```\n![img](pic.png)\n"
    )
    targets = [t for t, _ in relative_links(str(page))]
    assert targets == ["page.md", "nowhere.md", "pic.png"]
