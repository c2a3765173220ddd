"""What a confined child may import: the whole standard library, the course's packages, the student's own
modules sent beside the code, nothing else.

The child drops to an unprivileged uid, which may not be able to walk to the interpreter's files (a
Python installed under a 0700 home, say). So before dropping, it opens each standard-library folder
(and each allowed package's folder) and imports through `/proc/self/fd/N`: the kernel lets a process
follow its own descriptors without searching the folders above, while Landlock still checks every file
read below them. A finder in front of `sys.meta_path` refuses every other top-level name with one line.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
import os
import sys
import sysconfig
import types


class NotAllowed(ModuleNotFoundError):
    """An import outside the standard library and the course's packages."""


class Refused(types.ModuleType):
    """A module the course does not allow, imported by a file's own top lines outside any `try` (a
    plotting library for a demo under `if __name__ == "__main__"`, say): it is there so that the rest
    of the file loads, and using anything of it raises NotAllowed, with the course's one line."""

    def __init__(self, name: str, message: str):
        super().__init__(name)
        self.__path__ = []  # its submodules are refused alike
        self.__qkv_refused__ = message

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return RefusedName(f"{self.__name__}.{attr}", self.__qkv_refused__)


class RefusedName:
    """Anything taken from a Refused module: calling it raises NotAllowed."""

    def __init__(self, name: str, message: str):
        self._name, self._message = name, message

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return RefusedName(f"{self._name}.{attr}", self._message)

    def __call__(self, *args, **kwargs):
        raise NotAllowed(self._message, name=self._name.partition(".")[0])

    def __repr__(self) -> str:
        return f"<{self._name}: not allowed in this course>"


class _RefusedLoader:
    def __init__(self, message: str):
        self.message = message

    def create_module(self, spec):
        return Refused(spec.name, self.message)

    def exec_module(self, module):
        pass


class _OwnLoader:
    """Runs a module of the student's own, named in tracebacks as they name it (`helpers.py`)."""

    def __init__(self, path: str):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(self.path, "rb") as f:
            source = f.read()
        module.__file__ = os.path.basename(self.path)
        exec(compile(source, module.__file__, "exec", dont_inherit=True), module.__dict__)


def _guarded_lines(source: str) -> list[tuple[int, int]]:
    """The lines of every `try` body whose handlers would catch an ImportError (bare, Exception,
    BaseException, ImportError, ModuleNotFoundError), and of every `with` whose context names one
    of those (`contextlib.suppress(ImportError)`): an import there is the code's own fallback."""
    import ast  # noqa: PLC0415 - only when a refused import is met while loading

    catching = {"Exception", "BaseException", "ImportError", "ModuleNotFoundError"}

    def names(node) -> set:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
            n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
        }

    spans = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Try)
            and node.body
            and any(h.type is None or names(h.type) & catching for h in node.handlers)
        ) or (
            isinstance(node, ast.With)
            and node.body
            and any(names(i.context_expr) & catching for i in node.items)
        ):
            spans.append((node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno))
    return spans


@functools.lru_cache(maxsize=1)
def stdlib_dirs() -> list[str]:
    """The interpreter's standard library: the source folder, its zip, and the extension modules.

    Found once, while they can still be seen (a child asks again after its uid drop).
    """
    stdlib = sysconfig.get_paths()["stdlib"]
    candidates = [
        stdlib,
        sysconfig.get_config_var("DESTSHARED") or os.path.join(stdlib, "lib-dynload"),
        os.path.join(
            os.path.dirname(stdlib), f"python{sys.version_info[0]}{sys.version_info[1]}.zip"
        ),
    ]
    return [p for p in dict.fromkeys(candidates) if p and os.path.exists(p)]


def package_dirs(name: str) -> list[str]:
    """The folders (or the one file) of an importable top-level package, and its bundled libraries
    (found without importing it: a sandbox is started before the grader has imported numpy)."""
    module = sys.modules.get(name)
    if module is not None:
        paths = list(getattr(module, "__path__", None) or [])
        origin = getattr(module, "__file__", None)
    else:
        spec = importlib.util.find_spec(name)
        paths = list(spec.submodule_search_locations or []) if spec else []
        origin = spec.origin if spec and spec.has_location else None
    if not paths and origin:
        paths = [origin]
    extra = [p + ".libs" for p in paths] + [
        os.path.join(os.path.dirname(p), f"{name}.libs") for p in paths
    ]
    return [p for p in dict.fromkeys(paths + extra) if os.path.exists(p)]


@functools.lru_cache(maxsize=4)
def allowed_names(allowed: tuple[str, ...]) -> frozenset[str]:
    """The standard library's top-level names and the allowed packages', built once (by the zygote:
    a child building it would touch, and so copy, every page holding one of those names)."""
    return frozenset(sys.stdlib_module_names) | frozenset(allowed)


class Gate:
    """A meta-path finder that lets through only the standard library, the allowed packages and the
    submission's own module (`own`)."""

    def __init__(self, allowed: tuple[str, ...], own: str | None = None):
        self.allowed = tuple(allowed)
        self.names = allowed_names(self.allowed)
        self.own = own
        self.home = ""  # the submission's folder, where its own modules are
        # (file name, source being run) while a submission's top lines run.
        self.loading: tuple[str, str] | None = None
        self.refused: list[
            tuple[str, int, str]
        ] = []  # (message, line, its code) of each module given as Refused

    def find_spec(self, fullname, path=None, target=None):
        """None for a module the ordinary finders may look for, a spec for a module of the
        student's own beside the file; any other raises NotAllowed, or, imported by the file's top
        lines outside a `try`, is a module that raises it when used (see Refused).

        Args:
            fullname: the module's dotted name, as the import statement names it.
            path: the parent package's __path__ for a submodule, else None (unused here).
            target: the module being reloaded, or None (unused here).
        """
        top = fullname.partition(".")[0]
        if top in self.names or top == self.own:
            return None  # the ordinary finders look for it
        if fullname == top and self.home and os.path.isfile(os.path.join(self.home, f"{top}.py")):
            # The student's own module, sent beside the code (grading/own_modules.py).
            return importlib.machinery.ModuleSpec(
                top, _OwnLoader(os.path.join(self.home, f"{top}.py")), origin=f"{top}.py"
            )
        listed = ", ".join(self.allowed) if self.allowed else "only the standard library"
        message = f"import of {top} is not allowed in this course (allowed: {listed})"
        line = self._top_line()
        if line is None:
            raise NotAllowed(message, name=top)
        source = self.loading[1]
        lines = (source.decode("utf-8", "replace") if isinstance(source, bytes) else source).split(
            "\n"
        )
        self.refused.append(
            (message, line, lines[line - 1].strip() if 0 < line <= len(lines) else "")
        )
        return importlib.machinery.ModuleSpec(fullname, _RefusedLoader(message), is_package=True)

    def _top_line(self) -> int | None:
        """The line of the submission's top-level code making this import while it loads, unless the
        import is inside a `try` that would catch its ImportError; else None (refuse it outright)."""
        if self.loading is None:
            return None
        filename, source = self.loading
        frame: types.FrameType | None = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename != filename:
            frame = frame.f_back
        if frame is None or frame.f_code.co_name != "<module>":
            return None
        line = frame.f_lineno
        try:
            guarded = _guarded_lines(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        return None if any(first <= line <= last for first, last in guarded) else line

    def invalidate_caches(self):
        pass


def open_folders(paths: list[str]) -> dict[str, str]:
    """Open each folder now (while it can still be reached); returns {path: '/proc/self/fd/N'}."""
    opened = {}
    for path in paths:
        if os.path.isdir(path):
            try:
                opened[path] = f"/proc/self/fd/{os.open(path, os.O_RDONLY | os.O_DIRECTORY)}"
            except OSError:
                pass
    return opened


def _through(path: str, opened: dict[str, str]) -> str | None:
    for folder, alias in opened.items():
        if path == folder or path.startswith(folder + os.sep):
            return alias + path[len(folder) :]
    return None


def alias_packages(opened: dict[str, str]) -> None:
    """Give every package imported so far (`encodings`, `numpy`) the aliases of its `__path__`, so
    its submodules are found through the opened folders. Done once in the zygote, before it forks:
    in each child it would touch (and so copy) every module object."""
    for module in list(sys.modules.values()):
        paths = getattr(module, "__path__", None)
        if isinstance(paths, list):
            paths += [alias for alias in (_through(p, opened) for p in list(paths)) if alias]


def import_path(opened: dict[str, str]) -> tuple[str, ...]:
    """sys.path of a confined child: the standard library through the opened folders."""
    return tuple(opened[p] for p in stdlib_dirs() if p in opened)


def restrict(path: tuple[str, ...], gate: Gate, own: str, home: str = "") -> None:
    """Import only through the opened folders, and only what the gate lets through.

    Args:
        path: sys.path through the opened folders (see alias_packages).
        gate: the import gate, built once by the zygote.
        own: the submission's module.
        home: the submission's folder.
    """
    sys.path[:] = path
    sys.path_importer_cache.clear()
    gate.own, gate.home = own, home
    sys.meta_path.insert(0, gate)
