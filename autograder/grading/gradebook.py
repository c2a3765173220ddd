"""gradebook.csv: one row per student, sorted, one column per part (and the quiz), no timestamps."""
from __future__ import annotations

import csv
import io

from autograder.grading.results import StudentResult


def columns(assignment) -> list[str]:
    return [p.id for p in assignment.parts] + (["quiz"] if assignment.quiz else [])


def header(assignment) -> list[str]:
    return ["student", *columns(assignment), "total", "status"]


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def row(assignment, result: StudentResult) -> list[str]:
    return [result.student, *(_fmt(result.part_score(c)) for c in columns(assignment)), _fmt(result.total),
            result.status]


def text(assignment, rows: list[list[str]]) -> str:
    """The CSV text of the header and rows (rows sorted by student here, whatever order they came in)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header(assignment))
    writer.writerows(sorted(rows, key=lambda r: r[0]))
    return buf.getvalue()
