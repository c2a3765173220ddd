"""The engine's layers import only downward, and no modules or packages import each other in a cycle.

Imports inside functions count as much as those at the top of a module: a lazy import hides a
cycle from Python but not from a reader who has to learn the house.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import qkv

PACKAGE = Path(qkv.__file__).parent

# Lowest first: a layer may import itself and the layers before it.
LAYERS = (
    "errors",
    "course",
    "shipped",
    "results",
    "sandbox",
    "content",
    "quiz",
    "reports",
    "intake",
    "suites",
    "release",
    "check",
    "grade",
    "validate",
    "integrations",
    "serve",
    "cli",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _type_only(tree: ast.Module) -> set[ast.AST]:
    """The import statements under `if TYPE_CHECKING:`, which never run."""
    return {
        node
        for top in ast.walk(tree)
        if isinstance(top, ast.If)
        and ast.unparse(top.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for stmt in top.body
        for node in ast.walk(stmt)
    }


def _imports(name: str, path: Path, known: set[str], *, type_only: bool = True) -> set[str]:
    """Every module of the package that `name` imports, anywhere in its body (with `type_only`,
    those under `if TYPE_CHECKING:` too)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set() if type_only else _type_only(tree)
    for node in ast.walk(tree):
        if node in skip:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - node.level + 1]
                base = ".".join([*here, *([node.module] if node.module else [])])
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith("qkv"):
                found.add(target)
    return found


def _graph(*, type_only: bool = True) -> dict[str, set[str]]:
    """Who imports whom; without `type_only`, as the imports run (type-only ones break no cycle
    at run time, and are how a module names a type from a module that imports it)."""
    modules = _modules()
    known = set(modules)
    return {
        name: _imports(name, path, known, type_only=type_only) for name, path in modules.items()
    }


def _layer(module: str) -> int:
    parts = module.split(".")
    return -1 if len(parts) == 1 else LAYERS.index(parts[1])


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_every_subpackage_is_a_named_layer():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert packages | modules <= set(LAYERS), sorted((packages | modules) - set(LAYERS))


def test_no_module_imports_a_layer_above_its_own():
    upward = [
        f"{a} imports {b}"
        for a, targets in sorted(_graph().items())
        for b in sorted(targets)
        if _layer(b) > _layer(a)
    ]
    assert not upward, "\n".join(upward)


def test_no_two_modules_import_each_other_even_through_others():
    assert not _cycles(_graph(type_only=False))


def test_no_two_packages_import_each_other_even_through_others():
    packages: dict[str, set[str]] = defaultdict(set)
    for a, targets in _graph(type_only=False).items():
        for b in targets:
            pa, pb = ".".join(a.split(".")[:2]), ".".join(b.split(".")[:2])
            if pa != pb:
                packages[pa].add(pb)
    for name in list(packages):
        packages.setdefault(name, set())
    assert not _cycles(dict(packages))


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_the_cycle_finder_finds_cycles_through_any_number_of_modules(edges, expected):
    assert _cycles(edges) == expected
