"""Manual adjustments: `overrides:` in an assignment names a CSV the grader keeps by hand.

Header `student,part,points,comment`. `points` is the part's new points (`15`), or a change when it
starts with a sign (`+2`, `-3`). Adjustments apply after grading, in file order, to the result that
counts; a part's points stay between 0 and its maximum. They live outside the results, so a regrade
keeps them; the student's page shows each with its comment, and the class report lists them all.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from collections.abc import Iterable
from dataclasses import dataclass

from qkv.course import layout
from qkv.course.config import Assignment, Course
from qkv.course.files import read_text
from qkv.errors import QkvError, did_you_mean
from qkv.results.outcomes import Outcome
from qkv.results.records import StudentResult, TestResult

HEADER = ("student", "part", "points", "comment")
OUTCOME = Outcome.ADJUSTED
MAX_BYTES = 5_000_000


@dataclass(frozen=True)
class Override:
    student: str
    part: str
    points: float
    is_change: bool  # '+2' / '-3' rather than '15'
    comment: str

    @property
    def written(self) -> str:
        return f"{self.points:+g}" if self.is_change else f"{self.points:g}"


def part_max(assignment: Assignment, part: str) -> float:
    points: float = assignment.quiz_points if part == "quiz" else assignment.part(part).points
    return points


def parse(text: str, *, name: str, assignment: Assignment) -> tuple[Override, ...]:
    """The overrides in `text`, checked against the assignment's parts.

    Args:
        text: the overrides file's text.
        name: how errors name the file.
        assignment: the assignment whose parts may be overridden.

    Returns:
        The overrides, in file order.

    Raises:
        QkvError: one line naming the file and the line.
    """
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != HEADER:
        raise QkvError(
            f"{name}: the header must be {','.join(HEADER)}, got {','.join(reader.fieldnames or ['nothing'])}"
        )
    parts = [p.id for p in assignment.parts] + (["quiz"] if assignment.quiz else [])
    found = []
    for row in reader:
        where = f"{name}: line {reader.line_num}"
        if None in row or any(v is None for v in row.values()):
            raise QkvError(f"{where}: expected {len(HEADER)} fields")
        student, part, points = row["student"].strip(), row["part"].strip(), row["points"].strip()
        if not layout.is_valid_id(student):
            raise QkvError(f"{where}: {student!r} is not a usable student id")
        if part not in parts:
            raise QkvError(
                f"{where}: unknown part '{part}' (parts: {', '.join(parts)})"
                + did_you_mean(part, parts)
            )
        try:
            value = float(points)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise QkvError(
                f"{where}: points: expected a number such as 15, +2 or -3, got {points!r}"
            )
        is_change = points[:1] in "+-"
        if not is_change and not 0 <= value <= part_max(assignment, part):
            raise QkvError(
                f"{where}: points: {points} is outside 0..{part_max(assignment, part):g} for part '{part}'"
            )
        found.append(Override(student, part, value, is_change, row["comment"].strip()))
    return tuple(found)


def load(course: Course, assignment: Assignment) -> tuple[Override, ...]:
    """The assignment's overrides, or () when it names no file."""
    if not assignment.overrides:
        return ()
    path = course.path(assignment.overrides)
    text = read_text(
        path,
        name=str(path),
        limit=MAX_BYTES,
        what="the overrides",
        encoding="utf-8-sig",
        missing=f"overrides file not found (course.yaml: overrides of '{assignment.id}')",
    )
    return parse(text, name=str(path), assignment=assignment)


def apply(
    result: StudentResult, overrides: Iterable[Override], assignment: Assignment
) -> StudentResult:
    """The result with one `adjusted` entry per override of this student.

    Args:
        result: the student's result as graded.
        overrides: the assignment's overrides.
        assignment: the assignment, for each part's most points.

    Returns:
        The result, its entries' scores the changes made (the same object when none applies).
    """
    tests = list(result.tests)
    for o in (o for o in overrides if o.student == result.student):
        now = round(sum(t.score for t in tests if t.part == o.part), 6)
        wanted = now + o.points if o.is_change else o.points
        new = min(max(wanted, 0.0), part_max(assignment, o.part))
        tests.append(
            TestResult(
                f"{o.part}: adjusted by the grader ({o.written})",
                o.part,
                round(new - now, 6),
                0.0,
                OUTCOME,
                o.comment,
                None,
                "visible",
            )
        )
    return (
        dataclasses.replace(result, tests=tuple(tests))
        if len(tests) != len(result.tests)
        else result
    )


def adjustments(result: StudentResult) -> list[TestResult]:
    return [t for t in result.tests if t.outcome == OUTCOME]
