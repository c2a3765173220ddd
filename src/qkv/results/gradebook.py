"""gradebook.csv: one row per student, sorted, one column per part (and the quiz), then the late policy's say.

`total` is what the checks (and any manual adjustment) gave; `submitted_at` when the work was handed
in; `credit` the percentage the late policy grants for it (100 on time or without a time); `final`
= total × credit / 100. With a roster, a student on it without a submission has a `missing` row of
zeros, and one graded but not on it says so in `status`.
"""

from __future__ import annotations

import csv
import heapq
from collections.abc import Iterable, Iterator
from pathlib import Path

from qkv.course import deadlines
from qkv.course.config import Assignment
from qkv.results.records import StudentResult, atomic_file

MISSING = "missing"
NOT_ON_ROSTER = " (not on roster)"


def columns(assignment: Assignment) -> list[str]:
    return [p.id for p in assignment.parts] + (["quiz"] if assignment.quiz else [])


def header(assignment: Assignment) -> list[str]:
    return ["student", *columns(assignment), "total", "submitted_at", "credit", "final", "status"]


def max_points(assignment: Assignment) -> float:
    """The most points the assignment gives: its parts and its quiz."""
    points: float = sum(p.points for p in assignment.parts)
    return round(points + (assignment.quiz_points if assignment.quiz else 0), 6)


def fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def row(assignment: Assignment, result: StudentResult) -> list[str]:
    """A graded student's row (of a student on the roster, or with no roster: see off_roster)."""
    submitted = result.extra.get("submitted_at") or ""
    credit = deadlines.credit(assignment, result.student, submitted or None)
    return [
        result.student,
        *(fmt(result.part_score(c)) for c in columns(assignment)),
        fmt(result.total),
        submitted,
        fmt(credit),
        fmt(deadlines.final(result.total, credit)),
        result.status,
    ]


def off_roster(row: list[str]) -> list[str]:
    """The row of a student graded but not on the roster: its status says so."""
    return [*row[:-1], row[-1] + NOT_ON_ROSTER]


def missing_row(assignment: Assignment, student: str) -> list[str]:
    """A roster student without a submission: no points, no credit."""
    return [student, *("0" for _ in columns(assignment)), "0", "", "0", "0", MISSING]


def _student(row: list[str]) -> str:
    return row[0]


def write(path: Path, assignment: Assignment, *sorted_rows: Iterable[list[str]]) -> None:
    """Write gradebook.csv from streams of rows each sorted by student, merged a row at a time."""
    with atomic_file(path) as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header(assignment))
        merged: Iterator[list[str]] = heapq.merge(*sorted_rows, key=_student)
        writer.writerows(merged)


def read(path: Path) -> list[dict[str, str]]:
    """gradebook.csv as one dict per row (for exports)."""
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))
