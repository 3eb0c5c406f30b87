#!/usr/bin/env python3
"""No function over 80 lines in the suite's non-test code, unless it says why it is one piece.

C++ (src/, benchmarks/, tools/, python/ext/) and Python (analysis/, experiments/, scripts/,
python/iris_trace/; test files and folders aside): a function longer than MAX_LINES, from the
first line of its definition to its last, is printed as FILE:LINE: NAME is N lines, and the exit
code is 1, unless the line before its definition, or its first line, carries a comment
`// one piece: WHY` (C++) or `# one piece: WHY` (Python) saying why it stays whole.

Python functions come from its own parser (ast: every def, methods and nested ones included). C++
functions come from a scan that blanks comments, string and character literals (raw strings
too) and preprocessor lines, then matches braces: a brace block whose head (the code since the
last `;`, `{` or `}`) ends in a parameter list, with any qualifiers or a constructor's
initializer list after it, is a function body; namespaces, classes, structs and unions are
scanned for the functions inside them; anything else (an initializer, an enum, a lambda given
to a variable outside a function) is skipped whole. Lambdas inside a function count as its lines.

`--self-test` plants long, short and marked functions among the constructs the scan must see
through, and checks that exactly the long unmarked ones are found, with their names and lengths.
Standard library only.
"""

import argparse
import ast
import pathlib
import re
import sys
import tempfile

MAX_LINES = 80
CPP_DIRS = ("src", "benchmarks", "tools", "python/ext")
PY_DIRS = ("analysis", "experiments", "scripts", "python/iris_trace")
CPP_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh")
MARK = re.compile(r"(//|#)\s*one piece:\s*\S")

# After a parameter list: qualifiers, a trailing return type, or a constructor's initializers.
AFTER_PARAMS = re.compile(
    r"\)\s*(?:(?:const|noexcept|override|final|mutable|volatile)\b\s*|&&?\s*|noexcept\s*\([^)]*\)\s*)*"
    r"(?:->\s*[^{;=]+)?\s*(?::(?!:)[\s\S]*)?$"
)
SCOPE = re.compile(
    r"^(?:template\s*<[\s\S]*>\s*)?(?:namespace\b|extern\s*\"C\"|(?:class|struct|union)\b)"
)
ACCESS = re.compile(r"^\s*(?:public|private|protected)\s*:(?!:)")


def blank(text):
    """text with comments, string and character literals and preprocessor lines turned to spaces,
    newlines kept: what is left is code whose braces are the program's."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n else 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        line_start = c == "\n"
        raw = re.match(r'(?:u8|u|U|L)?R"([^ ()\\\t\n]{0,16})\(', text[i : i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + raw.group(1) + '"', i + raw.end())
            j = n if end < 0 else end + len(raw.group(1)) + 2
            out.append('""' + "".join(ch if ch == "\n" else " " for ch in text[i + 2 : j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(head):
    """The function's name from its head: the (qualified) name before its parameter list."""
    op = re.search(r"([\w:~]*operator\s*(?:\(\)|[^\s(]+))\s*\(", head)
    if op:
        return op.group(1)
    depth, k = 0, 0
    for k, ch in enumerate(head):  # the first parenthesis outside template arguments
        depth += ch == "<"
        depth -= ch == ">" and depth > 0
        if ch == "(" and depth == 0:
            break
    m = re.search(r"([~\w:]+)\s*$", head[:k])
    return m.group(1) if m else head[:k].strip() or "(unnamed)"


def close_paren(text, i):
    """The index of the parenthesis closing the one at i (len(text) when none does)."""
    depth = 0
    for j in range(i, len(text)):
        depth += text[j] == "("
        depth -= text[j] == ")"
        if depth == 0:
            return j
    return len(text)


def params_end(head):
    """Where the parameter list of a function head ends (the index of its ')'), or -1."""
    if re.search(r"\b(?:if|for|while|switch|catch|return)\s*\(", head):
        return -1
    op = re.search(r"operator\s*\(\)\s*\(", head)
    start = op.end() - 1 if op else head.find("(")
    return -1 if start < 0 else close_paren(head, start)


def is_function_head(head):
    flat = head
    while True:  # parenthesized parts (parameters, their defaults) aside: x = [] { and = { left
        shorter = re.sub(r"\([^()]*\)", "", flat)
        if shorter == flat:
            break
        flat = shorter
    if "=" in re.sub(r"operator\s*[^\s(]*=+|[<>!=]=", "", flat):
        return False
    end = params_end(head)
    return 0 <= end < len(head) and AFTER_PARAMS.match(head[end:]) is not None


def has_initializers(head):
    """Whether a function head goes on into a constructor's initializer list."""
    end = params_end(head)
    return 0 <= end < len(head) and re.match(r"\)[^:{]*:(?!:)", head[end:]) is not None


def cpp_functions(text):
    """(line, name, length) of every function body in C++ source text."""
    code = blank(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for i, ch in enumerate(code):
        line_of[i] = line
        line += ch == "\n"
    line_of[len(code)] = line
    found = []

    def match(i):  # the index of the brace closing the one at i
        depth = 0
        for j in range(i, len(code)):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    return j
        return len(code) - 1

    def scan(start, end):  # a scope's text: find functions, descend into scopes
        head_start = start
        i = start
        while i < end:
            ch = code[i]
            if ch in ";}":
                head_start = i + 1
            elif ch == "{":
                raw_head = code[head_start:i]
                head = ACCESS.sub("", raw_head).strip()
                close = match(i)
                if head and has_initializers(head) and re.search(r"[\w>]\s*$", head):
                    i = close + 1  # a member's brace initializer: the head goes on
                    continue
                if SCOPE.match(head) and "(" not in head.split(":")[0]:
                    scan(i + 1, close)
                elif head and is_function_head(head):
                    first = head_start + len(raw_head) - len(raw_head.lstrip())
                    access = ACCESS.match(code[first:i])
                    if access:
                        first += len(access.group(0))
                        while code[first] in " \t\n":
                            first += 1
                    begin = line_of[first]
                    found.append((begin, function_name(head), line_of[close] - begin + 1))
                i = close
                head_start = i + 1
            i += 1

    scan(0, len(code))
    return found


def py_functions(text):
    """(line, name, length, first line incl. decorators) of every def in Python source text."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append((node.lineno, node.name, node.end_lineno - node.lineno + 1, first))
    return out


def marked(lines, *at):
    """Whether any of the 1-based lines `at` carries a `one piece:` comment."""
    return any(0 < k <= len(lines) and MARK.search(lines[k - 1]) for k in at)


def sources(root):
    root = pathlib.Path(root)
    for d in CPP_DIRS:
        for p in sorted((root / d).rglob("*")):
            if p.suffix in CPP_SUFFIXES and p.is_file():
                yield p, "cpp"
    for d in PY_DIRS:
        for p in sorted((root / d).rglob("*.py")):
            rel = p.relative_to(root).parts
            if "tests" in rel or p.name.startswith("test_") or p.name == "conftest.py":
                continue
            yield p, "py"


def check(root, limit=MAX_LINES):
    """Every function over `limit` lines without its mark, as 'file:line: ...'; and the count of
    files read."""
    root = pathlib.Path(root)
    long, files = [], 0
    for path, kind in sources(root):
        files += 1
        text = path.read_text(errors="replace")
        lines = text.splitlines()
        rel = path.relative_to(root).as_posix()
        if kind == "cpp":
            entries = [(ln, name, n, ln) for ln, name, n in cpp_functions(text)]
        else:
            entries = py_functions(text)
        for ln, name, n, first in entries:
            if n > limit and not marked(lines, first - 1, ln - 1, ln):
                long.append(
                    f"{rel}:{ln}: {name} is {n} lines (over {limit}): split it along its steps, or "
                    "say why it is one piece on the line before it ('one piece: WHY')"
                )
    return long, files


def body(n, indent="  ", stmt="x += 1;"):
    return "".join(f"{indent}{stmt}\n" for _ in range(n))


def self_test():
    long_cpp = (
        "#include <string>\n"
        "#define OPEN {\n"  # a brace in a preprocessor line is no code
        "namespace a {\n"
        "// a brace in a comment: { /* and here { */\n"
        "struct S : Base {\n"
        " public:\n"
        "  int big(int x) const {\n" + body(85, "    ") + "  }\n"  # 1: in a struct, after public:
        "  int small() { return 1; }\n"
        "};\n"
        'const char* s = "{ not code";\n'
        "char c = '{';\n"
        'const char* r = R"x( { " } )" { )x";\n'
        "const auto table = [] {\n" + body(90, "  ", "t();") + "}();\n"  # a lambda initializer
        "enum class E : int { A, B };\n"
        "// one piece: a table read top to bottom\n"
        "int marked() {\n" + body(90) + "}\n"
        "Thing::Thing(int v) : v_(v), w_{v} {\n" + body(84) + "}\n"  # 2: an initializer list
        "int Eval::operator()(const S& s) const {\n" + body(81) + "}\n"  # 3: operator()
        "template <typename T>\n"
        "std::vector<T> many(T x) {\n"
        "  if (x) {\n" + body(79, "    ") + "  }\n}\n"  # 4: 84 lines from the template line
        "int exactly() {\n" + body(78) + "}\n"  # 80 lines: allowed
        "}  // namespace a\n"
    )
    long_py = (
        "def short():\n    return 1\n\n\n"
        "@decorator\n"
        "def long_one():\n" + body(85, "    ", "x = '{'") + "\n\n"  # 5
        "# one piece: its steps share every local\n"
        "def marked():\n" + body(90, "    ", "x = 1") + "\n\n"
        "class C:\n"
        "    def method(self):  # one piece: a table\n" + body(90, "        ", "y = 1") + "\n"
        "    def other(self):\n" + body(81, "        ", "y = 1") + "\n"  # 6
    )
    expected = {
        ("src/x.cpp", "big", 87),
        ("src/x.cpp", "Thing::Thing", 86),
        ("src/x.cpp", "Eval::operator()", 83),
        ("src/x.cpp", "many", 84),
        ("analysis/m.py", "long_one", 86),
        ("analysis/m.py", "other", 82),
    }
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        files = {
            "src/x.cpp": long_cpp,
            "analysis/m.py": long_py,
            "analysis/tests/test_m.py": "def t():\n" + body(100, "    ", "x = 1"),  # a test
            "tools/ok.cpp": "int main() { return 0; }\n",
        }
        for rel, text in files.items():
            p = pathlib.Path(d, rel)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        breaches, read = check(d)
        got = set()
        for b in breaches:
            m = re.match(r"(\S+):\d+: (\S+) is (\d+) lines", b)
            got.add((m.group(1), m.group(2), int(m.group(3))))
        for case in sorted(expected | got):
            ok = case in expected and case in got
            failed += not ok
            what = "found" if case in got else "missed"
            print(f"{'ok' if ok else 'FAILED'}: {case[0]} {case[1]} ({case[2]} lines) {what}")
        if read != 3:
            print(f"FAILED: read {read} files, expected 3 (tests left out)")
            failed += 1
    return failed


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--root", default=str(pathlib.Path(__file__).resolve().parent.parent), help="the repository"
    )
    ap.add_argument("--self-test", action="store_true", help="check that the scan finds them")
    args = ap.parse_args()
    if args.self_test:
        return 1 if self_test() else 0
    long, files = check(args.root)
    for b in long:
        print(b)
    if files == 0:
        print(f"check_function_length: no source file found under {args.root}")
        return 1
    print(f"check_function_length: {files} files, {len(long)} functions over {MAX_LINES} lines")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main())
