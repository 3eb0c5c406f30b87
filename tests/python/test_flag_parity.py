"""Every ./attribute flag has its attribute() keyword, and the keyword does what the flag does:
the CLI and the package run one pipeline (trace/run/run.h), so a flag without a keyword is a
hole in the package, caught here by reading ./attribute --help."""

import inspect
import re
import subprocess

import pytest
from conftest import TRACES

# Flags that have no keyword, each with why.
NO_KEYWORD = {
    "--help": "Python's help(attribute) is its docstring",
    "--quiet": "the package prints nothing: str(result) is the table",
    "--time": "the package's callers time it themselves (experiments/attribute_speed.py)",
}


def flags_of(help_text):
    return sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", help_text)))


def keyword_of(flag):
    """--step-range: step_range; --no-advice: advice (its False)."""
    name = flag[2:].replace("-", "_")
    return name.removeprefix("no_")


def missing_keywords(help_text, function):
    params = inspect.signature(function).parameters
    return [f for f in flags_of(help_text) if f not in NO_KEYWORD and keyword_of(f) not in params]


def help_text(binary):
    return subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout


def test_every_flag_has_a_keyword(attribute_bin):
    from iris_trace import attribute

    flags = flags_of(help_text(attribute_bin))
    assert "--step-starts" in flags and "--hta-max-queue" in flags  # read the real help
    assert missing_keywords(help_text(attribute_bin), attribute) == []


def test_a_flag_without_its_keyword_is_caught(attribute_bin):
    from iris_trace import attribute

    planted = help_text(attribute_bin) + "  --planted-flag N   a flag the package lacks\n"
    assert missing_keywords(planted, attribute) == ["--planted-flag"]


def cli(binary, *args):
    p = subprocess.run([binary, *map(str, args)], check=False, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


PAIRS = TRACES.parent / "traces_pairs"


@pytest.mark.parametrize(
    "flags, keywords",
    [
        (["--hta"], {"hta": True}),
        (["--hta-no-rounding"], {"hta_no_rounding": True}),
        (["--hta-max-queue", "16"], {"hta_max_queue": 16}),
        (["--replay"], {"replay": True}),
        (
            ["--what-if", "no-syncs", "--what-if", "scale-launches=0"],
            {"what_if": ["no-syncs", "scale-launches=0"]},
        ),
        (["--no-advice"], {"advice": False}),
    ],
)
def test_keyword_gives_the_flags_output(flags, keywords, attribute_bin, tmp_path):
    from iris_trace import attribute

    trace = TRACES / "a100-alexnet-syncs.json.gz"
    rc, out, err = cli(attribute_bin, *flags, "--json", tmp_path / "cli.json", trace)
    assert rc == 0, err
    r = attribute(trace, **keywords, json=tmp_path / "py.json")
    assert str(r) + "\n" == out
    assert (tmp_path / "py.json").read_text() == (tmp_path / "cli.json").read_text() == r.json


def test_step_starts_and_html_as_the_cli(attribute_bin, tmp_path):
    from iris_trace import attribute

    trace = next(PAIRS.glob("*compile-default*"))
    args = ["--step-starts", "Torch-Compiled Region", "--step-every", "1"]
    rc, out, err = cli(attribute_bin, *args, "--html", tmp_path / "cli.html", trace)
    assert rc == 0, err
    r = attribute(
        trace, step_starts="Torch-Compiled Region", step_every=1, html=tmp_path / "py.html"
    )
    assert str(r) + "\n" == out
    assert (tmp_path / "py.html").read_text() == (tmp_path / "cli.html").read_text() == r.html


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"hta": True, "replay": True}, "separate reports"),
        ({"step_range": "a", "step_starts": "b"}, "pick one"),
        ({"step_every": 2}, "--step-every goes with --step-starts"),
        ({"step_starts": "a", "step_every": 0}, "from 1 to 1e6, got '0'"),
        ({"hta_max_queue": 0}, ">= 1, got '0'"),
        ({"html": "page.html", "replay": True}, "--html is the attribution's page"),
        ({"what_if": "no-such-what-if"}, "expected no-syncs"),
    ],
)
def test_options_that_do_not_go_together_are_a_value_error(keywords, message, tmp_path):
    from iris_trace import attribute

    with pytest.raises(ValueError, match=re.escape(message)):
        attribute(TRACES / "a100-event-sync.json.gz", **keywords)
    assert list(tmp_path.iterdir()) == []
