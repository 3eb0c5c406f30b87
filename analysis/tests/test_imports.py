"""The analysis package's modules form no import circle, and none uses another's private name.

Read from the source (every `import`, also inside functions), so an import that only runs
when a plot is drawn counts too."""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent


def imports_of(path, modules=()):
    """(module imported, names taken from it) for every analysis.* import in the file; a name
    that is itself a module of `modules` (from analysis.sub import mod) is an import of it."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] == "analysis"
        ):
            submodules = [a.name for a in node.names if f"{node.module}.{a.name}" in modules]
            out += [(f"{node.module}.{name}", []) for name in submodules]
            names = [a.name for a in node.names if a.name not in submodules]
            if names or not submodules:
                out.append((node.module, names))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.startswith("analysis.")]
    return out


def module_name(path, package):
    """analysis.sub.mod for package/sub/mod.py, analysis.sub for package/sub/__init__.py."""
    parts = path.relative_to(package).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("analysis",) + parts)


def graph(package=PACKAGE):
    """Every module of the package and its subpackages (not its tests) -> its imports."""
    paths = [p for p in package.rglob("*.py") if "tests" not in p.relative_to(package).parts]
    modules = {module_name(p, package): p for p in paths}
    modules.pop("analysis", None)
    return {m: imports_of(p, modules) for m, p in modules.items()}


def find_cycle(edges):
    """One circle as a list of modules, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in edges.get(m, ()):
            if state.get(n) == "open":
                return stack[stack.index(n) :] + [n]
            if n not in state and (c := visit(n)):
                return c
        stack.pop()
        state[m] = "done"
        return None

    for m in edges:
        if m not in state and (c := visit(m)):
            return c
    return None


def test_no_import_circle():
    g = graph()
    assert len(g) >= 10  # the package was found
    cycle = find_cycle({m: {n for n, _ in imps if n in g} for m, imps in g.items()})
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_no_private_name_across_modules():
    bad = [
        f"{m} takes {name} from {n}"
        for m, imps in graph().items()
        for n, names in imps
        for name in names
        if name.startswith("_")
    ]
    assert not bad, "; ".join(bad)


def test_subpackages_are_in_the_graph():
    g = graph()
    assert {"analysis.trace_pages.stats", "analysis.attribute_json.reader"} <= set(g)
    # from analysis.trace_pages import prose: an edge to the module, not to the package
    assert ("analysis.trace_pages.prose", []) in g["analysis.trace_pages.pages"]


def test_the_checks_catch_what_they_look_for(tmp_path):
    (tmp_path / "a.py").write_text("from analysis import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from analysis.a import _save\n")
    g = graph(tmp_path)
    assert find_cycle({m: {n for n, _ in imps if n in g} for m, imps in g.items()}) is not None
    assert g["analysis.b"] == [("analysis.a", ["_save"])]
    # a circle through a subpackage is found too
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "__init__.py").write_text("")
    (tmp_path / "sub" / "c.py").write_text("from analysis import a\n")
    (tmp_path / "a.py").write_text("from analysis.sub import c\n")
    g = graph(tmp_path)
    cycle = find_cycle({m: {n for n, _ in imps if n in g} for m, imps in g.items()})
    assert cycle == ["analysis.a", "analysis.sub.c", "analysis.a"] or cycle == [
        "analysis.sub.c",
        "analysis.a",
        "analysis.sub.c",
    ]
