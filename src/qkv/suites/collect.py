"""Collecting the hidden suites without starting a pytest session, when they are plain.

A grading run needs, of each suite test, its function, its markers (`part`, `weight`) and the
values it asks for. For suites that use nothing more (no parametrize or other markers, no
fixtures, hooks or conftest, no test classes), this reads them straight from the imported modules,
in pytest's order and with its node ids; anything else returns None and pytest collects as usual.
What this saves is pytest's configuration, plugins and session, which cost more than grading one
student, and, unless something already imported it, pytest itself: the suites are imported with a
stand-in for `pytest` whose `mark` records marks as pytest's does, and which hands anything else a
suite asks of it (`pytest.raises`, `pytest.fixture`, ...) to the real pytest, imported then.
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import sys
import types
import warnings
from pathlib import Path
from types import SimpleNamespace

PLAIN_MARKS = {"part", "weight"}


class PlainItem:
    """What the suite runner reads of a pytest item, for a test collected here."""

    def __init__(self, fn, nodeid: str, marks: list, argnames: tuple[str, ...]):
        self.obj = fn
        self.originalname = fn.__name__
        self.name = fn.__name__
        self.nodeid = nodeid
        self.location = (nodeid.split("::")[0], fn.__code__.co_firstlineno - 1, fn.__name__)
        self._fixtureinfo = SimpleNamespace(argnames=argnames)
        self._marks = marks  # closest first: the function's own, then the module's

    def get_closest_marker(self, name: str):
        return next((m for m in self._marks if m.name == name), None)


def plain_items(root: Path, files: list[str], fixtures: set[str]):
    """The test items of the suite files, or None when any of them needs pytest's own collection.

    Args:
        root: the suites' folder.
        files: the suite files, relative to `root`.
        fixtures: the values a test may ask for.

    Returns:
        The items in pytest's order, with its node ids, or None.
    """
    if (
        any((Path(f).parent / "conftest.py").exists() for f in files)
        or (Path(root) / "conftest.py").exists()
    ):
        return None
    items = []
    with _pytest_marks():
        for file in files:
            module = _import(Path(file))
            found = _module_items(module, Path(file).relative_to(root).as_posix(), fixtures)
            if found is None:
                return None
            items += found
    return items


class _MarkDecorator:
    """`pytest.mark.<name>(*args)`: applied to a function, it appends the mark to the function's
    `pytestmark` list, as pytest does; read by _marks_of through `name` and `args`."""

    def __init__(self, name: str, args: tuple = (), kwargs: dict | None = None):
        self.name, self.args, self.kwargs = name, args, kwargs or {}

    def __call__(self, *args, **kwargs):
        if (
            len(args) == 1
            and not kwargs
            and (inspect.isfunction(args[0]) or inspect.isclass(args[0]))
        ):
            args[0].pytestmark = [*getattr(args[0], "pytestmark", []), self]
            return args[0]
        return _MarkDecorator(self.name, self.args + args, {**self.kwargs, **kwargs})


class _MarkGenerator:
    def __getattr__(self, name: str) -> _MarkDecorator:
        if name.startswith("_"):
            raise AttributeError(name)
        return _MarkDecorator(name)


def _stand_in() -> types.ModuleType:
    module = types.ModuleType("pytest", "pytest's marks; anything else comes from pytest itself")
    module.__dict__["mark"] = _MarkGenerator()

    def real(name: str):
        if name in (
            "__path__",
            "__file__",
        ):  # what importlib and inspect probe modules for: none here
            raise AttributeError(name)
        if sys.modules.get("pytest") is module:
            del sys.modules["pytest"]
        import pytest  # noqa: PLC0415 - the real one, once a suite asks for more than marks

        return getattr(pytest, name)

    module.__dict__["__getattr__"] = real
    return module


@contextlib.contextmanager
def _pytest_marks():
    """While the suites are imported, `import pytest` gives the stand-in, unless pytest is loaded."""
    if "pytest" in sys.modules:
        yield
        return
    stand_in = sys.modules["pytest"] = _stand_in()
    try:
        yield
    finally:
        if sys.modules.get("pytest") is stand_in:
            del sys.modules["pytest"]


def _import(path: Path):
    name = f"qkv_suite_{abs(hash(str(path))):x}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, "a .py file has a source loader"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = (
        module  # while it runs (dataclasses and the like look themselves up); dropped after
    )
    try:
        with (
            warnings.catch_warnings()
        ):  # inside another pytest run (a test of this kit), our markers are unknown
            warnings.filterwarnings("ignore", message=r"Unknown pytest\.mark\.(part|weight)")
            spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def _marks_of(obj) -> list | None:
    marks = getattr(obj, "pytestmark", [])
    marks = marks if isinstance(marks, list) else [marks]
    if not all(getattr(m, "name", None) in PLAIN_MARKS for m in marks):
        return None
    return list(marks)


def _module_items(module, relpath: str, fixtures: set[str]):
    module_marks = _marks_of(module)
    if module_marks is None:
        return None
    items = []
    for name, obj in vars(module).items():
        if inspect.ismodule(obj):  # what the suite imported (pytest, numpy, ...)
            continue
        if (
            name.startswith("pytest_")
            or hasattr(obj, "_pytestfixturefunction")
            or type(obj).__name__ == "FixtureFunctionDefinition"
        ):
            return None  # a hook or a fixture
        if name.startswith("Test") and inspect.isclass(obj):
            return None
        if not (name.startswith("test") and inspect.isfunction(obj)):
            continue
        marks = _marks_of(obj)
        argnames = _argnames(obj)
        if marks is None or argnames is None or not set(argnames) <= fixtures:
            return None
        items.append(PlainItem(obj, f"{relpath}::{name}", marks + module_marks, argnames))
    return items


def _argnames(fn) -> tuple[str, ...] | None:
    names = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return None
        if p.default is p.empty:
            names.append(p.name)
    return tuple(names)
