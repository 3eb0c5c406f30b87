"""The repository's Python is packages (analysis, experiments, scripts, data) run from the root as
`python -m PKG.NAME`: no module edits sys.path or imports a sibling as a top-level module, no
import circle runs through them, each package's __init__ imports nothing, no module takes
another's private name, and every module imports from the root under one name.

Read from the source (every import, also inside functions, relative ones resolved), and then
checked by importing every module in a fresh interpreter. The self-test plants each breach in a
small tree and checks it is caught, and that a clean tree passes."""

import ast
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("analysis", "experiments", "scripts", "data")


def modules(root=REPO):
    """{module name: path} of every module of the packages under root, tests left out."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if "tests" in parts or parts[-1].startswith("test_"):
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _is_package(name, mods):
    return mods.get(name, pathlib.Path()).name == "__init__.py"


def imports_of(name, path, mods):
    """[(imported module, names taken from it, line)] for every import of one of the packages'
    modules; `from pkg import mod` is an import of pkg.mod."""
    package = name if _is_package(name, mods) else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names if a.name in mods]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x, from ..y import z
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source not in mods:
                continue
            subs = [a.name for a in node.names if f"{source}.{a.name}" in mods]
            out += [(f"{source}.{s}", [], node.lineno) for s in subs]
            names = [a.name for a in node.names if a.name not in subs]
            if names or not subs:
                out.append((source, names, node.lineno))
    return out


def graph(root=REPO):
    mods = modules(root)
    return {m: imports_of(m, p, mods) for m, p in mods.items()}


def circles(edges):
    """Every strongly connected set of two or more modules (Tarjan), each as a set."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges.get(v, ()):
                found.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _is_sys_path(node):
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def path_edits(root=REPO):
    """FILE:LINE of every sys.path edit (a call on sys.path, an assignment to it or to an item,
    `from sys import path`, site.addsitedir) in the packages, tests included."""
    found = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                hit = (
                    (isinstance(node, ast.Attribute) and _is_sys_path(node.value))
                    or (
                        isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                        and any(
                            _is_sys_path(t)
                            or (isinstance(t, ast.Subscript) and _is_sys_path(t.value))
                            for t in (
                                node.targets if isinstance(node, ast.Assign) else [node.target]
                            )
                        )
                    )
                    or (
                        isinstance(node, ast.ImportFrom)
                        and node.module == "sys"
                        and any(a.name == "path" for a in node.names)
                    )
                    or (isinstance(node, ast.Attribute) and node.attr == "addsitedir")
                )
                if hit:
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return sorted(set(found))


def sibling_imports(root=REPO):
    """FILE:LINE of every import that names a module of the file's own folder as a top-level
    module (`import sweeps` beside experiments/sweeps.py): it only resolves through a sys.path
    edit or the script's folder, and loads the module under a second name."""
    found = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            siblings = {p.stem for p in path.parent.glob("*.py")} | {
                d.name for d in path.parent.iterdir() if (d / "__init__.py").is_file()
            }
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name.split(".")[0] for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module.split(".")[0]]
                if any(n in siblings and n not in PACKAGES for n in names):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def heavy_inits(root=REPO):
    """Each package __init__ that imports anything: importing one module of a package must not
    cost the others' imports."""
    found = []
    for path in sorted(p for pkg in PACKAGES for p in (root / pkg).rglob("__init__.py")):
        tree = ast.parse(path.read_text())
        if any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree)):
            found.append(str(path.relative_to(root)))
    return found


def private_names(g):
    return [
        f"{m} takes {name} from {n}"
        for m, imps in g.items()
        for n, names, _ in imps
        for name in names
        if name.startswith("_")
    ]


IMPORT_ALL = """
import importlib, json, os, sys
root = os.path.realpath(os.getcwd())
failed = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except BaseException as e:
        failed[name] = f"{type(e).__name__}: {e}"
names = {}
for name, module in list(sys.modules.items()):
    f = getattr(module, "__file__", None)
    if name not in ("__main__", "__mp_main__") and f and os.path.realpath(f).startswith(root + os.sep):
        names.setdefault(os.path.relpath(os.path.realpath(f), root), []).append(name)
print(json.dumps({"failed": failed, "names": names}))
"""


def import_all(root=REPO):
    """({module: error} for those that do not import from root, {file: [names]} for every file
    of root loaded under more than one name)."""
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, json.dumps(sorted(modules(root)))],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    twice = {f: sorted(n) for f, n in got["names"].items() if len(n) > 1}
    return got["failed"], twice


def found_circles(root=REPO):
    g = graph(root)
    return circles({m: {n for n, _, _ in imps if n in g and n != m} for m, imps in g.items()})


def test_the_packages_are_found():
    mods = modules()
    assert {"analysis.report", "analysis.trace_pages.stats", "experiments.sweeps"} <= set(mods)
    assert {"scripts.gpu_plan", "data.make_split"} <= set(mods)
    assert len(mods) >= 60


def test_no_sys_path_edit():
    assert path_edits() == []


def test_no_module_imports_a_sibling_as_top_level():
    assert sibling_imports() == []


def test_package_inits_import_nothing():
    assert heavy_inits() == []


def test_no_import_circle():
    assert [sorted(c) for c in found_circles()] == []


def test_no_private_name_across_modules():
    assert private_names(graph()) == []


def test_subpackages_are_in_the_graph():
    g = graph()
    assert {"analysis.trace_pages.stats", "analysis.trace_pages.pages"} <= set(g)
    # from analysis.trace_pages import prose: an edge to the module, not to the package
    assert any(n == "analysis.trace_pages.prose" for n, _, _ in g["analysis.trace_pages.pages"])


def test_every_module_imports_from_the_root_under_one_name():
    failed, twice = import_all()
    assert not failed, failed
    assert not twice, f"modules loaded under two names: {twice}"


def plant(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for pkg in PACKAGES:
        (root / pkg).mkdir(exist_ok=True)
        (root / pkg / "__init__.py").touch()


CLEAN = {
    "analysis/a.py": "from analysis import b\nfrom analysis.sub import c\n",
    "analysis/b.py": "import json\n",
    "analysis/sub/__init__.py": "",
    "analysis/sub/c.py": "from . import d\nfrom .d import VALUE\n",
    "analysis/sub/d.py": "VALUE = 1\n",
    "experiments/e.py": "from experiments import f\nimport experiments.f\n",
    "experiments/f.py": "from analysis.sub import d\n",
    "scripts/g.py": "def run():\n    from experiments import e\n",
}


def test_the_checks_pass_a_clean_tree(tmp_path):
    plant(tmp_path, CLEAN)
    assert path_edits(tmp_path) == [] and sibling_imports(tmp_path) == []
    assert heavy_inits(tmp_path) == [] and found_circles(tmp_path) == []
    assert private_names(graph(tmp_path)) == []
    assert import_all(tmp_path) == ({}, {})
    g = graph(tmp_path)  # relative imports resolved to their modules
    assert {n for n, _, _ in g["analysis.sub.c"]} == {"analysis.sub.d"}


@pytest.mark.parametrize(
    "files, check, expected",
    [
        ({"scripts/x.py": "import sys\nsys.path.insert(0, 'y')\n"}, path_edits, ["scripts/x.py:2"]),
        ({"experiments/x.py": "import sys\nsys.path = []\n"}, path_edits, ["experiments/x.py:2"]),
        ({"analysis/x.py": "import sys\nsys.path[0] = 'y'\n"}, path_edits, ["analysis/x.py:2"]),
        ({"data/x.py": "from sys import path\n"}, path_edits, ["data/x.py:1"]),
        ({"analysis/x.py": "import site\nsite.addsitedir('y')\n"}, path_edits, ["analysis/x.py:2"]),
        (
            {"experiments/sweeps.py": "", "experiments/x.py": "def f():\n    import sweeps\n"},
            sibling_imports,
            ["experiments/x.py:2"],
        ),
        (
            {"scripts/plan.py": "", "scripts/x.py": "from plan import steps\n"},
            sibling_imports,
            ["scripts/x.py:1"],
        ),
        ({"analysis/__init__.py": "import numpy\n"}, heavy_inits, ["analysis/__init__.py"]),
    ],
)
def test_each_planted_breach_is_named(tmp_path, files, check, expected):
    plant(tmp_path, {**CLEAN, **files})
    assert check(tmp_path) == expected


def test_a_planted_circle_is_found_across_packages_and_in_a_function(tmp_path):
    plant(tmp_path, {**CLEAN, "analysis/b.py": "def f():\n    from scripts import g\n"})
    # scripts.g -> experiments.e -> experiments.f -> analysis.sub.d: no circle back yet
    assert found_circles(tmp_path) == []
    plant(tmp_path, {"analysis/sub/d.py": "from scripts import g\n"})
    found = found_circles(tmp_path)
    assert found == [{"analysis.sub.d", "experiments.e", "experiments.f", "scripts.g"}]


def test_a_planted_private_name_is_found(tmp_path):
    plant(tmp_path, {**CLEAN, "analysis/b.py": "from analysis.sub.d import _hidden\n"})
    assert private_names(graph(tmp_path)) == ["analysis.b takes _hidden from analysis.sub.d"]


def test_a_module_loaded_under_two_names_and_one_that_fails_are_found(tmp_path):
    plant(
        tmp_path,
        {
            **CLEAN,
            "experiments/x.py": """\
                import os, sys
                sys.path.insert(0, os.path.dirname(__file__))
                import f
                """,
            "scripts/broken.py": "raise RuntimeError('runs at import')\n",
        },
    )
    failed, twice = import_all(tmp_path)
    assert failed == {"scripts.broken": "RuntimeError: runs at import"}
    assert twice == {"experiments/f.py": ["experiments.f", "f"]}
