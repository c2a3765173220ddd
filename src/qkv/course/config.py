"""course.yaml: declared once as frozen dataclasses, validated on load, mirrored as a JSON Schema."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from qkv.course import deadlines
from qkv.course.layout import COURSE_FILE, SCHEMA_FILE  # noqa: F401 - re-exported
from qkv.errors import QkvError, did_you_mean

MAX_CONFIG_BYTES = 1_000_000

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]


def _f(description: str, default=dataclasses.MISSING, *, minimum=None, regrade: bool = True, **kw):
    """A dataclass field with a description (and an optional lower bound) for errors and the schema.

    regrade=False marks a field whose change needs no student's code graded again (a deadline, a
    title): `grading_view` leaves it out, so a rerun reuses the results and recomputes the rest.
    """
    meta = {"description": description}
    if minimum is not None:
        meta["minimum"] = minimum
    if not regrade:
        meta["regrade"] = False
    if default is not dataclasses.MISSING:
        kw["default"] = default
    return field(metadata=meta, **kw)


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every worker that runs student code."""

    call_timeout_s: float = _f(
        "wall-clock seconds one call of a student function may take", 2.0, minimum=0.05
    )
    import_timeout_s: float = _f(
        "wall-clock seconds loading the submission may take", 5.0, minimum=0.05
    )
    cpu_s: int = _f("CPU seconds one worker may use in all", 20, minimum=1)
    memory_mb: int = _f("address-space limit of one worker, in MiB", 1024, minimum=64)
    max_processes: int = _f("processes and threads one submission may run at once", 16, minimum=1)
    max_file_kb: int = _f("largest file a submission may write, in KiB", 256, minimum=0)
    max_output_kb: int = _f(
        "stdout/stderr kept per submission, in KiB; the rest is dropped", 16, minimum=1
    )
    max_submission_kb: int = _f(
        "largest submission file accepted, in KiB; for a notebook, the size of the "
        "code taken from its solution cells",
        2048,
        minimum=1,
    )
    max_notebook_kb: int = _f(
        "largest notebook file accepted, in KiB, outputs included (only the cells' "
        "sources are read)",
        65536,
        minimum=1,
    )


@dataclass(frozen=True)
class Tolerance:
    """How close a student's array must be to the reference (numpy.isclose semantics)."""

    rtol: float = _f("relative tolerance", 1e-6, minimum=0)
    atol: float = _f("absolute tolerance", 1e-9, minimum=0)


@dataclass(frozen=True)
class Part:
    """One graded function of an assignment: a column of the gradebook."""

    id: str = _f("gradebook column and suite name (suites/test_<id>.py beside the reference)")
    function: str = _f("name of the student function this part grades")
    points: float = _f("points for the whole part, shared among its checks by weight", minimum=0)
    timeout_s: float | None = _f(
        "wall-clock seconds one call of this part's function may take, for a "
        "function that needs more than limits.call_timeout_s (a whole training "
        "run, say)",
        None,
        minimum=0.05,
    )


@dataclass(frozen=True)
class LateStep:
    """A late window: work handed in after the previous window (or the deadline) and by `until` earns `credit`."""

    until: str = _f("end of the window, ISO 8601 with a time zone (e.g. 2026-12-16T23:59:00+00:00)")
    credit: float = _f("percentage of the points work handed in within the window earns", minimum=0)


@dataclass(frozen=True)
class Extension:
    """A later deadline for one student; the late windows move with it."""

    student: str = _f("the student's id")
    deadline: str = _f("the student's own deadline, ISO 8601 with a time zone")


@dataclass(frozen=True)
class Assignment:
    """One assignment: a reference solution, its graded parts, and where students find it."""

    id: str = _f("short id used on the command line and in folder names")
    title: str = _f("human-readable title", regrade=False)
    source: str = _f(
        "the instructor master with solution markers, relative to course.yaml; its folder holds "
        "the rest of the assignment (content.py, suites/, README.md) and students hand in a file "
        "of the same name"
    )
    parts: tuple[Part, ...] = _f("graded parts, in gradebook order")
    deadline: str | None = _f(
        "due date, ISO 8601 with a time zone (e.g. 2026-12-15T23:59:00+00:00); work "
        "handed in later earns the credit of `late`",
        None,
        regrade=False,
    )
    late: tuple[LateStep, ...] = _f(
        "late windows in order, credit strictly falling; after the last, 0 credit "
        "(without any, late work earns 0)",
        (),
        regrade=False,
    )
    extensions: tuple[Extension, ...] = _f("per-student later deadlines", (), regrade=False)
    overrides: str | None = _f(
        "CSV of manual adjustments (student,part,points,comment; points '+2' or '-3' "
        "is a change, '15' the new points) relative to course.yaml, applied after "
        "grading",
        None,
        regrade=False,
    )
    random_cases: int = _f("seeded random cases per randomised check", 3, minimum=1)
    quiz: str | None = _f("quiz master relative to course.yaml (answers included)", None)
    quiz_points: float = _f("points for the whole quiz", 0, minimum=0)
    notebook: str | None = _f(
        "the notebook's story (markdown with qkv directives) relative to course.yaml; "
        "release then writes the notebook too",
        None,
        regrade=False,
    )

    def call_timeouts(self) -> dict[str, float]:
        """Per-call limits of the functions whose parts set their own (any other: limits.call_timeout_s)."""
        return {p.function: p.timeout_s for p in self.parts if p.timeout_s is not None}

    def part(self, part_id: str) -> Part:
        for p in self.parts:
            if p.id == part_id:
                return p
        raise QkvError(
            f"unknown part '{part_id}' in assignment '{self.id}'"
            + did_you_mean(part_id, [p.id for p in self.parts])
        )


@dataclass(frozen=True)
class Feedback:
    """What graded students are shown."""

    visibility: Visibility = _f("Gradescope visibility of each test result", "after_published")
    show_case_inputs: bool = _f("include the inputs of failing hidden cases in feedback", False)
    reveal_quiz_answers: bool = _f("show the correct quiz answer next to a wrong one", False)


@dataclass(frozen=True)
class Course:
    """The whole course: read from course.yaml."""

    name: str = _f("course name shown in reports", regrade=False)
    seed: int = _f(
        "course seed; cases per student derive from it, the assignment and the student id"
    )
    assignments: tuple[Assignment, ...] = _f("the assignments of the course")
    limits: Limits = _f("limits for student code", dataclasses.MISSING, default_factory=Limits)
    tolerance: Tolerance = _f(
        "comparison tolerances", dataclasses.MISSING, default_factory=Tolerance
    )
    feedback: Feedback = _f(
        "what students are shown", dataclasses.MISSING, default_factory=Feedback
    )
    packages: tuple[str, ...] = _f(
        "packages beyond the standard library that student code may import "
        "(any other import is refused with one line)",
        ("numpy",),
    )
    roster: str | None = _f(
        "CSV of the class (id,name,email,section; optional sis_id, sis_login_id, "
        "canvas_id) relative to course.yaml: every student on it gets a gradebook row",
        None,
        regrade=False,
    )
    resubmissions: Literal["last", "best"] = _f(
        "which of a student's several hand-ins counts: the last one, or the best after late credit",
        "last",
        regrade=False,
    )
    root: Path = field(default=Path("."), metadata={"internal": True}, compare=False)

    def assignment(self, assignment_id: str) -> Assignment:
        for a in self.assignments:
            if a.id == assignment_id:
                return a
        raise QkvError(
            f"{COURSE_FILE}: unknown assignment '{assignment_id}'"
            + did_you_mean(assignment_id, [a.id for a in self.assignments])
        )

    def path(self, relative: str) -> Path:
        return self.root / relative


# ---------------------------------------------------------------------------------------------
# Loading with one-line errors that name the path and the value.


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields(cls_or_obj):
    return _class_fields(cls_or_obj if isinstance(cls_or_obj, type) else type(cls_or_obj))


@functools.cache
def _class_fields(cls):
    return tuple(f for f in dataclasses.fields(cls) if not f.metadata.get("internal"))


@functools.cache
def _hints(cls) -> dict:
    """The field types of a config class (typing resolves them slowly: once per class)."""
    return typing.get_type_hints(cls)


def _convert(tp, value, where: str):
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _convert(inner, value, where)
    if origin is Literal:
        if value not in args:
            raise QkvError(
                f"{where}: expected one of {', '.join(map(str, args))}, got {_describe(value)}"
            )
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise QkvError(f"{where}: expected a list, got {_describe(value)}")
        return tuple(_convert(args[0], item, f"{where}[{i}]") for i, item in enumerate(value))
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, where)
    if (
        tp is object
    ):  # checked by the owner, whose rules depend on other fields (a quiz answer's kind)
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise QkvError(f"{where}: expected true or false, got {_describe(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise QkvError(f"{where}: expected a whole number, got {_describe(value)}")
        return value
    if tp is float:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise QkvError(f"{where}: expected a number, got {_describe(value)}")
        return float(value)
    if tp is str:
        if not isinstance(value, str) or not value.strip():
            raise QkvError(f"{where}: expected a non-empty string, got {_describe(value)}")
        return value
    raise TypeError(f"unsupported config type {tp!r}")  # a bug in this module, not user input


def _join(where: str, key) -> str:
    """'course.yaml:' + 'limits' -> 'course.yaml: limits'; 'course.yaml: limits' + 'cpu_s' -> '....limits.cpu_s'."""
    return f"{where} {key}" if where.endswith(":") else f"{where}.{key}"


def _build(cls, data, where: str):
    if not isinstance(data, dict):
        raise QkvError(f"{where.rstrip(':')}: expected a mapping, got {_describe(data)}")
    hints = _hints(cls)
    known = {f.name: f for f in _fields(cls)}
    for key in data:
        if key not in known:
            raise QkvError(f"{_join(where, key)}: unknown key" + did_you_mean(str(key), known))
    values = {}
    for name, f in known.items():
        sub = _join(where, name)
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise QkvError(f"{sub}: missing (required: {f.metadata['description']})")
            continue
        value = _convert(hints[name], data[name], sub)
        minimum = f.metadata.get("minimum")
        if minimum is not None and value is not None and value < minimum:
            raise QkvError(f"{sub}: must be at least {minimum}, got {_describe(data[name])}")
        values[name] = value
    return cls(**values)


def _unique(items, where: str) -> None:
    seen = set()
    for i, item in enumerate(items):
        if item.id in seen:
            raise QkvError(f"{where}[{i}].id: duplicate id '{item.id}'")
        seen.add(item.id)


def parse_course(data, *, root: Path = Path("."), name: str = COURSE_FILE) -> Course:
    """Validate already-parsed YAML data into a Course."""
    course = _build(Course, data, f"{name}:")
    _unique(course.assignments, f"{name}: assignments")
    for i, a in enumerate(course.assignments):
        _unique(a.parts, f"{name}: assignments[{i}].parts")
        if a.quiz is None and a.quiz_points:
            raise QkvError(f"{name}: assignments[{i}].quiz_points: set, but no quiz file is given")
        deadlines.check(a, f"{name}: assignments[{i}]")
    return dataclasses.replace(course, root=root)


def course_file(path: Path | str | None = None) -> Path:
    """The course file a --course argument names: a file, or course.yaml in a folder (default: ./course.yaml)."""
    path = Path(path) if path else Path(COURSE_FILE)
    return path / COURSE_FILE if path.is_dir() else path


# libyaml's parser when PyYAML was built with it (a tenth of the time on a quiz master), else PyYAML's own.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text(
    path: Path,
    *,
    name: str,
    limit: int,
    missing: str = "not found",
    what: str = "",
    encoding: str = "utf-8",
) -> str:
    """An instructor's text file (course.yaml, a quiz master, a roster), capped at `limit` bytes and
    decoded; every problem is one line naming `name` (`what` the file is, in "cannot read ...")."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise QkvError(f"{name}: {missing}") from None
    except OSError as e:
        raise QkvError(f"{name}: cannot read{' ' + what if what else ''} ({e.strerror})") from None
    if len(raw) > limit:
        raise QkvError(f"{name}: larger than {limit} bytes")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as e:
        raise QkvError(f"{name}: not UTF-8 (byte {e.start})") from None


def read_yaml(path: Path, *, name: str, limit: int, missing: str = "not found"):
    """An instructor's YAML file (course.yaml, quiz.yaml), safely parsed; errors are one line naming `name`."""
    text = read_text(path, name=name, limit=limit, missing=missing)
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark else ""
        raise QkvError(f"{name}: invalid YAML{at}: {getattr(e, 'problem', None) or e}") from None


def load_course(path: Path | str | None = None) -> Course:
    """Read and validate course.yaml (default: ./course.yaml)."""
    path = course_file(path)
    data = read_yaml(
        path,
        name=str(path),
        limit=MAX_CONFIG_BYTES,
        missing="not found (run from the course folder or pass --course PATH)",
    )
    return parse_course(data, root=path.resolve().parent, name=str(path))


def grading_view(course: Course, assignment: Assignment) -> dict:
    """What of the course decides one assignment's grades, as plain data: every field except those
    marked regrade=False, and of the assignments only this one. Results store its hash."""

    def view(obj):
        if dataclasses.is_dataclass(obj):
            return {
                f.name: view(getattr(obj, f.name))
                for f in _fields(obj)
                if f.metadata.get("regrade", True)
            }
        if isinstance(obj, tuple):
            return [view(x) for x in obj]
        return obj

    return {**view(dataclasses.replace(course, assignments=())), "assignment": view(assignment)}


# ---------------------------------------------------------------------------------------------
# The JSON Schema, derived from the same dataclasses (course.schema.json is kept equal by a test).


def _schema_of(tp) -> dict:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return {"anyOf": [_schema_of(inner), {"type": "null"}]}
    if origin is Literal:
        return {"enum": list(args)}
    if origin is tuple:
        return {"type": "array", "items": _schema_of(args[0])}
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        props, required = {}, []
        for f in _fields(tp):
            prop = {"description": f.metadata["description"], **_schema_of(hints[f.name])}
            if "minimum" in f.metadata:
                prop["minimum"] = f.metadata["minimum"]
            if f.default is not dataclasses.MISSING and f.default is not None:
                prop["default"] = list(f.default) if isinstance(f.default, tuple) else f.default
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                required.append(f.name)
            props[f.name] = prop
        return {
            "type": "object",
            "description": (tp.__doc__ or "").strip(),
            "properties": props,
            "required": required,
            "additionalProperties": False,
        }
    return {
        bool: {"type": "boolean"},
        int: {"type": "integer"},
        float: {"type": "number"},
        str: {"type": "string", "minLength": 1},
    }[tp]


def json_schema() -> dict:
    schema = _schema_of(Course)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "qkv-kit course.yaml",
        **schema,
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2) + "\n"


if __name__ == "__main__":  # python -m qkv.course.config > course.schema.json
    print(schema_text(), end="")
