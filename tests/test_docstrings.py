"""The engine's docstrings: module docstrings at most 10 lines, and public functions with three or
more parameters say what each is (Google style, an `Args:` section)."""

import ast
from pathlib import Path

import qkv

PACKAGE = Path(qkv.__file__).parent
MAX_MODULE_LINES = 10


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "templates" not in p.parts)


def _name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _functions(tree: ast.Module, prefix: str = ""):
    """(qualified name, node) of every function and method, classes walked into."""
    for node in tree.body if isinstance(tree, ast.Module) else tree:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")


def _undocumented_parameters() -> set[str]:
    found = set()
    for path in _modules():
        for qualname, node in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            if any(part.startswith("_") for part in qualname.split(".")):
                continue
            a = node.args
            params = [
                p for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")
            ]
            if len(params) >= 3 and "Args:" not in (ast.get_docstring(node) or ""):
                found.add(f"{_name(path)}.{qualname}")
    return found


def test_module_docstrings_are_at_most_ten_lines():
    long = {}
    for path in _modules():
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
        if doc and len(doc.strip().splitlines()) > MAX_MODULE_LINES:
            long[_name(path)] = len(doc.strip().splitlines())
    assert not long, f"move the reasoning to docs/internals/: {long}"


def test_public_functions_of_three_or_more_parameters_document_them():
    missing = _undocumented_parameters()
    assert not missing, sorted(missing)
