"""course.yaml: declared once as frozen dataclasses, validated on load, mirrored as a JSON Schema."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from qkv.course import deadlines
from qkv.course.declared import build, described, fields
from qkv.course.files import read_yaml
from qkv.course.layout import COURSE_FILE, SCHEMA_FILE  # noqa: F401 - re-exported
from qkv.errors import QkvError, did_you_mean

MAX_CONFIG_BYTES = 1_000_000

Visibility = Literal["hidden", "after_due_date", "after_published", "visible"]


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every child process that runs student code."""

    call_timeout_s: float = described(
        "wall-clock seconds one call of a student function may take", 2.0, minimum=0.05
    )
    import_timeout_s: float = described(
        "wall-clock seconds loading the submission may take", 5.0, minimum=0.05
    )
    cpu_s: int = described("CPU seconds one child process may use in all", 20, minimum=1)
    memory_mb: int = described("address-space limit of one child process, in MiB", 1024, minimum=64)
    max_processes: int = described(
        "processes and threads one submission may run at once", 16, minimum=1
    )
    max_file_kb: int = described("largest file a submission may write, in KiB", 256, minimum=0)
    max_output_kb: int = described(
        "stdout/stderr kept per submission, in KiB; the rest is dropped", 16, minimum=1
    )
    max_submission_kb: int = described(
        "largest submission file accepted, in KiB; for a notebook, the size of the "
        "code taken from its solution cells",
        2048,
        minimum=1,
    )
    max_notebook_kb: int = described(
        "largest notebook file accepted, in KiB, outputs included (only the cells' "
        "sources are read)",
        65536,
        minimum=1,
    )


@dataclass(frozen=True)
class Tolerance:
    """How close a student's array must be to the reference (numpy.isclose semantics)."""

    rtol: float = described("relative tolerance", 1e-6, minimum=0)
    atol: float = described("absolute tolerance", 1e-9, minimum=0)


@dataclass(frozen=True)
class Part:
    """One graded function of an assignment: a column of the gradebook."""

    id: str = described(
        "gradebook column and suite name (suites/test_<id>.py beside the reference)"
    )
    function: str = described("name of the student function this part grades")
    points: float = described(
        "points for the whole part, shared among its checks by weight", minimum=0
    )
    timeout_s: float | None = described(
        "wall-clock seconds one call of this part's function may take, for a "
        "function that needs more than limits.call_timeout_s (a whole training "
        "run, say)",
        None,
        minimum=0.05,
    )


@dataclass(frozen=True)
class LateStep:
    """A late window: work handed in after the previous window (or the deadline) and by `until` earns `credit`."""

    until: str = described(
        "end of the window, ISO 8601 with a time zone (e.g. 2026-12-16T23:59:00+00:00)"
    )
    credit: float = described(
        "percentage of the points work handed in within the window earns", minimum=0
    )


@dataclass(frozen=True)
class Extension:
    """A later deadline for one student; the late windows move with it."""

    student: str = described("the student's id")
    deadline: str = described("the student's own deadline, ISO 8601 with a time zone")


@dataclass(frozen=True)
class Assignment:
    """One assignment: a reference solution, its graded parts, and where students find it."""

    id: str = described("short id used on the command line and in folder names")
    title: str = described("human-readable title", regrade=False)
    source: str = described(
        "the instructor master with solution markers, relative to course.yaml; its folder holds "
        "the rest of the assignment (content.py, suites/, README.md) and students hand in a file "
        "of the same name"
    )
    parts: tuple[Part, ...] = described("graded parts, in gradebook order")
    deadline: str | None = described(
        "due date, ISO 8601 with a time zone (e.g. 2026-12-15T23:59:00+00:00); work "
        "handed in later earns the credit of `late`",
        None,
        regrade=False,
    )
    late: tuple[LateStep, ...] = described(
        "late windows in order, credit strictly falling; after the last, 0 credit "
        "(without any, late work earns 0)",
        (),
        regrade=False,
    )
    extensions: tuple[Extension, ...] = described("per-student later deadlines", (), regrade=False)
    overrides: str | None = described(
        "CSV of manual adjustments (student,part,points,comment; points '+2' or '-3' "
        "is a change, '15' the new points) relative to course.yaml, applied after "
        "grading",
        None,
        regrade=False,
    )
    random_cases: int = described("seeded random cases per randomised check", 3, minimum=1)
    quiz: str | None = described("quiz master relative to course.yaml (answers included)", None)
    quiz_points: float = described("points for the whole quiz", 0, minimum=0)
    notebook: str | None = described(
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

    visibility: Visibility = described(
        "Gradescope visibility of each test result", "after_published"
    )
    show_case_inputs: bool = described(
        "include the inputs of failing hidden cases in feedback", False
    )
    reveal_quiz_answers: bool = described("show the correct quiz answer next to a wrong one", False)


@dataclass(frozen=True)
class Serve:
    """The submission service, qkv serve: its limits, and the address students use."""

    submissions_per_hour: int = described(
        "hand-ins one student may make to one assignment in an hour", 30, minimum=1, regrade=False
    )
    max_upload_kb: int = described(
        "largest hand-in accepted, all its files together, in KiB", 4096, minimum=1, regrade=False
    )
    url: str | None = described(
        "the address students open the service at (written into the release for submit())",
        None,
        regrade=False,
    )


@dataclass(frozen=True)
class Course:
    """The whole course: read from course.yaml."""

    name: str = described("course name shown in reports", regrade=False)
    seed: int = described(
        "course seed; cases per student derive from it, the assignment and the student id"
    )
    assignments: tuple[Assignment, ...] = described("the assignments of the course")
    limits: Limits = described(
        "limits for student code", dataclasses.MISSING, default_factory=Limits
    )
    tolerance: Tolerance = described(
        "comparison tolerances", dataclasses.MISSING, default_factory=Tolerance
    )
    feedback: Feedback = described(
        "what students are shown", dataclasses.MISSING, default_factory=Feedback
    )
    packages: tuple[str, ...] = described(
        "packages beyond the standard library that student code may import "
        "(any other import is refused with one line)",
        ("numpy",),
    )
    roster: str | None = described(
        "CSV of the class (id,name,email,section; optional sis_id, sis_login_id, "
        "canvas_id) relative to course.yaml: every student on it gets a gradebook row",
        None,
        regrade=False,
    )
    resubmissions: Literal["last", "best"] = described(
        "which of a student's several hand-ins counts: the last one, or the best after late credit",
        "last",
        regrade=False,
    )
    serve: Serve = described(
        "the submission service", dataclasses.MISSING, default_factory=Serve, regrade=False
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


def _unique(items: tuple[Part | Assignment, ...], where: str) -> None:
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.id in seen:
            raise QkvError(f"{where}[{i}].id: duplicate id '{item.id}'")
        seen.add(item.id)


def parse_course(data: object, *, root: Path = Path("."), name: str = COURSE_FILE) -> Course:
    """Validate already-parsed YAML data into a Course.

    Args:
        data: the parsed course.yaml.
        root: the folder the course's relative paths start from.
        name: how errors name the file.

    Returns:
        The course.

    Raises:
        QkvError: one line naming the path of the first bad value.
    """
    course = build(Course, data, f"{name}:")
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


def grading_view(course: Course, assignment: Assignment) -> dict[str, Any]:
    """What of the course decides one assignment's grades, as plain data: every field except those
    marked regrade=False, and of the assignments only this one. Results store its hash."""

    def view(obj: object) -> Any:
        if dataclasses.is_dataclass(obj):
            return {
                f.name: view(getattr(obj, f.name))
                for f in fields(obj)
                if f.metadata.get("regrade", True)
            }
        if isinstance(obj, tuple):
            return [view(x) for x in obj]
        return obj

    return {**view(dataclasses.replace(course, assignments=())), "assignment": view(assignment)}
