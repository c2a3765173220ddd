"""What is taken of a code cell the student added to a notebook (see notebook/read.py): its
definitions, line for line where they stand, and its imports and the values it works out with numpy
or math, each guarded; never a call of the student's own code, a demo or a plot.

These cells are parsed here, in the trusted process (read.py bounds how much of them).
"""

from __future__ import annotations

import ast


def cell_lines(source: str) -> list[str]:
    """A cell's lines as Python counts them, at "\n" (extract makes "\r\n" and "\r" into "\n"): not
    str.splitlines, which also ends a line at "\x0c", "\x85" or "\u2028", even inside a string."""
    lines = source.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _constant(node) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


_SAFE_MODULES = frozenset(
    {"np", "numpy", "math"}
)  # a value may call their functions: np.sqrt, np.finfo, math.log
_SAFE_CALLS = frozenset(
    {
        "abs",
        "all",
        "any",
        "bool",
        "complex",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "frozenset",
        "int",
        "len",
        "list",
        "map",
        "max",
        "min",
        "pow",
        "range",
        "reversed",
        "round",
        "set",
        "slice",
        "sorted",
        "str",
        "sum",
        "tuple",
        "zip",
    }
)


def _names(target) -> list[str] | None:
    """The names an assignment target binds, when it binds names only (`a`, `a, b`)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        names: list[str] = []
        for t in target.elts:
            each = _names(t)
            if each is None:
                return None
            names += each
        return names
    return None


def _root(node):
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _computed(node) -> bool:
    """Whether a value can be worked out without running the student's own code, a demo or a plot: it
    calls only numpy's and math's functions (np.sqrt, np.finfo(float).tiny), methods of literals and
    harmless builtins; not a function a cell defines (`solve(X)`), `print`, `open`
    or `plt.subplots`. A lambda's body is not run, so not looked into."""
    todo = [node]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if isinstance(node, ast.Call):
            root = _root(node.func)
            if isinstance(node.func, ast.Name) and node.func.id not in _SAFE_CALLS:
                return False
            if not isinstance(node.func, ast.Name) and not (
                isinstance(root, ast.Constant)
                or (isinstance(root, ast.Name) and root.id in _SAFE_MODULES)
            ):
                return False
        if not isinstance(node, ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return True


def _guarded(node) -> str | None:
    """An assignment whose value is worked out (see `_computed`), on one line whatever its layout in the
    cell and guarded, as it may use what the grader lacks; None for any other, or for one that would
    not parse again as unparsed (the cell's defs would be lost with it)."""
    if not _computed(node.value):
        return None
    try:
        text = f"try:\n    {ast.unparse(node)}\nexcept Exception:\n    pass\n"
        ast.parse(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        return None
    return text


def definitions(source: str, functions) -> tuple[str, str, list[str], list[str]]:
    """What is taken of a code cell the student added (see the module docstring), but the defs of
    `functions` (those the solution cells define): (its imports, each guarded, to run before it; the
    cell with every other line blank but those of its definitions, then its names bound to values
    worked out from others (`TINY = np.finfo(float).tiny`), each guarded and on lines of its own after
    the cell's; the names it defines; the names of `functions` it defines too, not taken), or
    ("", "", [], []) when it has none or does not parse."""
    try:
        tree = ast.parse(source)
    except (
        SyntaxError,
        ValueError,
        MemoryError,
        RecursionError,
    ):  # a scratch cell: not the graded code
        return "", "", [], []
    lines = cell_lines(source)
    kept = [False] * len(lines)
    imports, names, futures, computed, graded = [], [], [], [], []
    for node in tree.body:
        first = node.lineno
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in functions:  # its solution cell's is graded
                graded.append(node.name)
                continue
            first = min([first, *(d.lineno for d in node.decorator_list)])
            names.append(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module == "__future__":
            futures.append(
                " ".join((ast.get_source_segment(source, node) or "").split()) + "\n"
            )  # first, and unguarded
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(ast.get_source_segment(source, node) or "")
            continue
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            each_bound = [_names(t) for t in targets]
            if None in each_bound:  # an attribute or an item is set: not a name of the module
                continue
            bound = [n for each in each_bound if each is not None for n in each]
            if set(bound) & set(
                functions
            ):  # a scratch `f = None` must not override f's graded cell
                continue
            if not (
                all(isinstance(t, ast.Name) for t in targets) and _constant(node.value)
            ):  # else kept in place
                if (value := _guarded(node)) is not None:
                    computed.append(value)
                    names += bound
                continue
            names += bound
        else:
            continue
        for i in range(first - 1, node.end_lineno or node.lineno):
            kept[i] = True
    if not (names or imports):
        return "", "", [], graded
    guarded = "".join(futures) + "".join(
        f"try:\n    {' '.join(i.split())}\nexcept ImportError:\n    pass\n" for i in imports
    )
    body = "\n".join(line if keep else "" for line, keep in zip(lines, kept)) + "\n"
    return guarded, (body.rstrip() + "\n" + "".join(computed) if computed else body), names, graded
