"""How much of a hand-in is still the release's stub: which of two files beside each other holds the work.

The released folder holds both `attention.py` and `attention.ipynb`, each with every function a stub
(`raise NotImplementedError()` where the solution goes), and a blank `answers.yaml`. A student who
works in the notebook and hands in the whole folder leaves the .py and the answers file as they
were released; grading those would give 0 for work that is there.

Everything here reads untrusted files in the trusted process: parsing is bounded by the callers'
size limits, and anything that does not parse counts as work (never as a stub).
"""

from __future__ import annotations

import ast


def _is_stub(fn: ast.FunctionDef) -> bool:
    """A body of nothing but `raise NotImplementedError(...)` (after a docstring, comments aside)."""
    body = fn.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def count(source: str | bytes) -> int | None:
    """The top-level functions of `source` that are stubs; None when it does not parse. Bytes are read
    as Python reads a file: UTF-8, or what its coding line says."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return sum(isinstance(node, ast.FunctionDef) and _is_stub(node) for node in tree.body)


def stub_lines(source: str) -> dict[str, tuple[int, int]]:
    """{name: (first line, last line)} of each top-level function of `source` that is a stub (its
    decorators included); empty when there is none or it does not parse."""
    if "NotImplementedError" not in source:  # most cells: no parse
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return {
        node.name: (
            min([node.lineno, *(d.lineno for d in node.decorator_list)]),
            node.end_lineno or node.lineno,
        )
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and _is_stub(node)
    }
