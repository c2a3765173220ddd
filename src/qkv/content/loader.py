"""Loading an assignment's content: `solutions/<assignment>/` as a package, read once per process.

The folder's `content.py` is trusted instructor code. It declares the functions students write and
gives the hooks the engine calls, as `qkv.content.contract.HOOKS` lists them; every other module of
the folder (the mistake catalogue, the worked example, case generators) is its own business.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import re
import sys
import types
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from qkv.content import contract
from qkv.content import reference as reference_mod
from qkv.content.mistakes import Catalogue
from qkv.course import layout
from qkv.course.config import Assignment
from qkv.errors import QkvError, did_you_mean


@dataclass(frozen=True, eq=False)
class Content:
    """One assignment's content, loaded: what the engine asks of an assignment goes through here."""

    assignment: Assignment
    folder: Path
    reference_path: Path
    module: types.ModuleType
    seed: int = 0  # the course's seed, for a worked example that draws (starting weights, say)

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(self.module.FUNCTIONS)

    @property
    def tuple_names(self) -> dict:
        return dict(getattr(self.module, "TUPLE_NAMES", {}))

    @property
    def chain(self) -> tuple[str, ...]:
        chain = getattr(self.module, "CHAIN", ())
        return (chain,) if isinstance(chain, str) else tuple(chain)

    @property
    def cases(self):
        return getattr(self.module, "cases", None)

    @property
    def honest_variants(self) -> dict:
        return dict(getattr(self.module, "HONEST_VARIANTS", {}))

    @property
    def endless(self) -> str:
        return getattr(self.module, "ENDLESS", self.functions[0])

    @property
    def quiz_compute(self) -> dict:
        return dict(getattr(self.module, "QUIZ_COMPUTE", {}))

    @property
    def notebook_snippets(self) -> dict:
        return dict(getattr(self.module, "NOTEBOOK_SNIPPETS", {}))

    @cached_property
    def calls(self) -> dict[str, list[str]]:
        """Each chain function's callees among the assignment's functions, read off the reference."""
        return reference_mod.calls(self.reference_source, self.functions, self.chain)

    @cached_property
    def catalogue(self) -> Catalogue:
        return Catalogue(self.module.MISTAKES, self.functions, self.calls)

    @cached_property
    def reference_source(self) -> str:
        try:
            return self.reference_path.read_text(encoding="utf-8")
        except OSError as e:
            raise QkvError(
                f"{self.reference_path}: cannot read the reference ({e.strerror})"
            ) from None

    @cached_property
    def reference(self) -> types.ModuleType:
        return self.reference_from(self.reference_source, where=str(self.reference_path))

    def reference_from(self, source: str, *, where: str) -> types.ModuleType:
        return reference_mod.from_source(source, where=where, functions=self.functions)

    def _build_example(self, reference):
        hook = self.module.example
        seeded = "seed" in inspect.signature(hook).parameters
        return hook(reference, seed=self.seed) if seeded else hook(reference)

    @cached_property
    def example(self):
        return self._build_example(self.reference)

    def example_for(self, reference):
        """The worked example computed with `reference` (a master being released, say)."""
        return (
            self.example
            if reference is None or reference is self.reference
            else self._build_example(reference)
        )

    def public_cases(self, reference=None) -> dict:
        return self.module.public_cases(reference or self.reference, self.example_for(reference))

    def feedback_section(self, recorded: dict, tolerance):
        hook = getattr(self.module, "feedback_section", None)
        return hook(recorded or {}, self.example, tolerance) if hook else None

    @property
    def suites_dir(self) -> Path:
        return self.folder / layout.SUITES_DIR

    def suite_files(self) -> list[str]:
        """One hidden suite per part, test_<part id>.py."""
        files = []
        for part in self.assignment.parts:
            suite = self.suites_dir / f"test_{part.id}.py"
            if not suite.is_file():
                raise QkvError(
                    f"part '{part.id}': no hidden suite {suite.name} in {self.suites_dir}"
                )
            files.append(str(suite))
        return files

    @property
    def student_readme(self) -> Path:
        return self.folder / layout.STUDENT_README


def _package_name(folder: Path, assignment_id: str) -> str:
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:10]
    return f"qkv_content_{re.sub(r'[^0-9A-Za-z_]', '_', assignment_id)}_{digest}"


def _import(folder: Path, assignment_id: str) -> types.ModuleType:
    name = _package_name(folder, assignment_id)
    if name not in sys.modules:
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        package = importlib.util.module_from_spec(spec)
        package.__path__ = [str(folder)]
        sys.modules[name] = package
    try:
        return importlib.import_module(f"{name}.{layout.CONTENT_MODULE}")
    except ModuleNotFoundError as e:
        if e.name == f"{name}.{layout.CONTENT_MODULE}":
            raise QkvError(
                f"{folder / (layout.CONTENT_MODULE + '.py')}: not found (every assignment's "
                "folder needs one)"
            ) from None
        raise


@lru_cache(maxsize=16)
def _load(reference_path: Path, assignment, seed: int) -> Content:
    folder = reference_path.parent
    module = _import(folder, assignment.id)
    wrong = contract.problem(module)
    if wrong:
        raise QkvError(f"{folder / 'content.py'}: {wrong}")
    content = Content(assignment, folder, reference_path, module, seed)
    unknown = [p.function for p in assignment.parts if p.function not in content.functions]
    if unknown:
        raise QkvError(
            f"assignment '{assignment.id}': part function '{unknown[0]}' is not one of "
            f"{', '.join(content.functions)}" + did_you_mean(unknown[0], content.functions)
        )
    return content


def load(course, assignment) -> Content:
    """The content of `assignment`, found through course.yaml (its `source` names the folder)."""
    return _load(course.path(assignment.source).resolve(), assignment, course.seed)


def snapshot(course, assignment) -> dict[str, bytes]:
    """The files an assignment needs from the course folder (its content folder, quiz master and
    notebook story), by path relative to course.yaml: what a grading machine without this disk
    gets (see `unpack`), and what an exported course carries."""
    root = course.root.resolve()
    folder = layout.content_dir(course, assignment).resolve()
    paths = [p for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    paths += [course.path(p).resolve() for p in (assignment.quiz, assignment.notebook) if p]
    files = {}
    for path in paths:
        try:
            files[path.relative_to(root).as_posix()] = path.read_bytes()
        except ValueError:
            raise QkvError(
                f"{path}: outside the course folder {root}; keep an assignment's files beside "
                "course.yaml"
            ) from None
    return files


def unpack(files: dict[str, bytes], root: Path) -> None:
    """Write a `snapshot` under root (a fresh folder that then stands for the course folder)."""
    for name, data in files.items():
        path = Path(root) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
