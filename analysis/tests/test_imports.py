"""The analysis package's modules form no import circle, and none uses another's private name.

Read from the source (every `import`, also inside functions), so an import that only runs
when a plot is drawn counts too."""

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent


def imports_of(path):
    """(module imported, names taken from it) for every analysis.* import in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] == "analysis"
        ):
            if node.module == "analysis":  # from analysis import a, b
                out += [(f"analysis.{a.name}", []) for a in node.names]
            else:
                out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.startswith("analysis.")]
    return out


def graph(package=PACKAGE):
    modules = {f"analysis.{p.stem}": p for p in package.glob("*.py") if p.stem != "__init__"}
    return {m: imports_of(p) for m, p in modules.items()}


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


def test_the_checks_catch_what_they_look_for(tmp_path):
    (tmp_path / "a.py").write_text("from analysis import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from analysis.a import _save\n")
    g = graph(tmp_path)
    assert find_cycle({m: {n for n, _ in imps if n in g} for m, imps in g.items()}) is not None
    assert g["analysis.b"] == [("analysis.a", ["_save"])]
