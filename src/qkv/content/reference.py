"""The instructor's reference: loaded in trusted grading processes only, never shipped to students
or sent to the sandboxed children that run their code."""

from __future__ import annotations

import ast
import types
from pathlib import Path

from qkv.errors import QkvError


def module_from_source(source: str, name: str, namespace: dict | None = None) -> types.ModuleType:
    """Execute trusted source text as a fresh module.

    Args:
        source: the module's source.
        name: the module's name.
        namespace: names to put in it before it runs, or None.

    Returns:
        The module (not added to sys.modules).
    """
    module = types.ModuleType(name)
    module.__dict__.update(namespace or {})
    module.__dict__[SOURCE] = source  # what mistakes written as edits of it are made from
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


SOURCE = "__qkv_source__"


def source_of(module) -> str | None:
    """The source text a module was made from by module_from_source, if it was."""
    return getattr(module, SOURCE, None)


def load(path: Path, functions: tuple[str, ...]) -> types.ModuleType:
    """Load the reference module from the instructor master (solutions/<assignment>/<module>.py)."""
    try:
        source = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise QkvError(f"{path}: cannot read the reference ({e.strerror})") from None
    return from_source(source, where=str(path), functions=functions)


def from_source(source: str, *, where: str, functions: tuple[str, ...]) -> types.ModuleType:
    """The reference module from its source text.

    Args:
        source: the reference's source.
        where: how errors name it.
        functions: the functions it must define.

    Returns:
        The module.

    Raises:
        QkvError: the source has a syntax error, or lacks one of `functions`.
    """
    try:
        module = module_from_source(source, "reference")
    except SyntaxError as e:
        raise QkvError(f"{where}: syntax error on line {e.lineno}: {e.msg}") from None
    missing = [f for f in functions if not callable(getattr(module, f, None))]
    if missing:
        raise QkvError(f"{where}: the reference lacks {', '.join(missing)}")
    return module


def function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Map each top-level function name to its (first, last) line, 1-based, decorators included."""
    spans = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans[node.name] = (first, node.end_lineno or node.lineno)
    return spans


def replace_function(source: str, name: str, new_def: str) -> str:
    """Return source with the top-level function `name` replaced by the text new_def.

    Args:
        source: a module's source.
        name: the function to replace.
        new_def: the new function's text.

    Returns:
        The new source.
    """
    first, last = function_spans(source)[name]
    lines = source.splitlines(keepends=True)
    return "".join(lines[: first - 1]) + new_def.rstrip("\n") + "\n" + "".join(lines[last:])


def calls(
    source: str, functions: tuple[str, ...], callers: tuple[str, ...]
) -> dict[str, list[str]]:
    """Which of `functions` each of `callers` calls in `source`, directly or through another of
    them, in the order of `functions`: what a failing caller may be failing because of.

    Args:
        source: the reference file's text.
        functions: the assignment's functions, in the content's order.
        callers: the functions asked about (the content's CHAIN).
    """
    direct: dict[str, set[str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            direct[node.name] = {
                n.func.id
                for n in ast.walk(node)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            } & (set(functions) - {node.name})
    found = {}
    for caller in callers:
        reached, todo = set(), list(direct.get(caller, ()))
        while todo:
            f = todo.pop()
            if f not in reached and f != caller:
                reached.add(f)
                todo.extend(direct.get(f, ()))
        found[caller] = [f for f in functions if f in reached]
    return found
