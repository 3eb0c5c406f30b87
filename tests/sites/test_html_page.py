"""./attribute --html: one self-contained page, rendered by a real browser (Debian's headless
Chromium, which scripts/setup.sh installs) and looked at pixel by pixel."""

import pathlib
import re
import shutil
import subprocess

import pytest

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
TRACE = DATA / "traces_stacks" / "h100-bert-small.json.gz"


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip("no Chromium here (scripts/setup.sh installs Debian's chromium)")


def test_the_page_is_self_contained_and_holds_every_part(attribute, tmp_path):
    page = tmp_path / "page.html"
    attribute("--quiet", "--html", page, TRACE)
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "<script" not in html  # nothing runs, nothing loads
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', html)
    for part in ("Advice", "Where each step", "Blocking calls by call site", "<svg"):
        assert part in html, part
    assert "transformers/modeling_attn_mask_utils.py(429)" in html  # a site's caller frame
    assert "Step time against the syncs kept" in html  # the replayed curve


def test_chromium_renders_it(attribute, tmp_path):
    browser = chromium()
    Image = pytest.importorskip("PIL.Image")
    page, shot = tmp_path / "page.html", tmp_path / "page.png"
    attribute("--quiet", "--html", page, TRACE)
    proc = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--window-size=1200,1400", f"--screenshot={shot}", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shot.exists(), proc.stderr
    img = Image.open(shot).convert("RGB")
    assert img.size == (1200, 1400)
    # Drawn, not blank: the bars' and the advice's colours are there.
    colours = img.getcolors(maxcolors=1 << 20)
    assert colours and len(colours) > 50
    busy_green = sum(n for n, c in colours if abs(c[0] - 0x2A) < 8 and abs(c[1] - 0x9D) < 8)
    assert busy_green > 20  # the GPU-busy bars
