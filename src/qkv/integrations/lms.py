"""Grades for a learning-management system, from graded folders and the course's roster.

`qkv export FORMAT --graded DIR [--graded DIR ...] --out FILE`; each DIR is what `qkv grade` wrote
for one assignment (its run.json names the assignment, its gradebook.csv holds the `final` scores,
late credit and adjustments applied); FORMAT is canvas, moodle, nbgrader or course.

More in docs/internals/integrations.md.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from qkv.course import deadlines, layout
from qkv.course import roster as roster_mod
from qkv.course.config import Assignment
from qkv.errors import QkvError
from qkv.reports.class_report import read_run
from qkv.results import gradebook
from qkv.results.records import atomic_write

FORMATS = ("canvas", "moodle", "nbgrader", "course")
NEEDS_ROSTER = ("canvas", "moodle")


@dataclass(frozen=True)
class Graded:
    """One assignment's graded folder: its gradebook rows by student."""

    assignment: Assignment
    rows: dict[str, dict[str, str]]  # student -> the gradebook row as a dict

    def final(self, student: str) -> str:
        row = self.rows.get(student)
        return row["final"] if row else "0"

    @property
    def points(self) -> str:
        return gradebook.fmt(gradebook.max_points(self.assignment))


def read_graded(course, folder: Path) -> Graded:
    """A folder `qkv grade` wrote, with the assignment its run.json names."""
    folder = Path(folder)
    if not (folder / layout.GRADEBOOK_FILE).is_file():
        raise QkvError(
            f"{folder}: no {layout.GRADEBOOK_FILE}; give a folder `qkv grade --out` wrote"
        )
    assignment_id = read_run(folder).get("assignment")
    if not isinstance(assignment_id, str):
        raise QkvError(f"{folder / layout.RUN_FILE}: names no assignment; grade the folder again")
    assignment = course.assignment(assignment_id)
    rows = gradebook.read(folder / layout.GRADEBOOK_FILE)
    expected = gradebook.header(assignment)
    if not rows or list(rows[0]) != expected:
        raise QkvError(
            f"{folder / layout.GRADEBOOK_FILE}: not the gradebook of '{assignment_id}' as this kit "
            "writes it now; grade the folder again"
        )
    return Graded(assignment, {r["student"]: r for r in rows})


def _csv(rows) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def _students(graded: list[Graded], roster) -> list[str]:
    """The roster's students, or without one everyone graded."""
    if roster is not None:
        return roster.ids
    return sorted(
        {s for g in graded for s, row in g.rows.items() if row["status"] != gradebook.MISSING}
    )


def canvas(graded: list[Graded], roster) -> str:
    head = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    rows = [
        head + [f"{g.assignment.title} ({g.assignment.id})" for g in graded],
        ["Points Possible", "", "", "", ""] + [g.points for g in graded],
    ]
    for s in roster.students:
        rows.append(
            [s.name or s.id, s.canvas_id, s.sis_id, s.sis_login_id, s.section]
            + [g.final(s.id) for g in graded]
        )
    return _csv(rows)


def moodle(graded: list[Graded], roster) -> str:
    rows = [
        ["Full name", "Email address", "ID number"]
        + [f"{g.assignment.title} ({g.assignment.id})" for g in graded]
    ]
    for s in roster.students:
        rows.append([s.name or s.id, s.email, s.sis_id or s.id] + [g.final(s.id) for g in graded])
    return _csv(rows)


def nbgrader(graded: list[Graded], roster) -> str:
    rows = [
        [
            "assignment",
            "duedate",
            "timestamp",
            "student_id",
            "last_name",
            "first_name",
            "email",
            "raw_score",
            "late_submission_penalty",
            "score",
            "max_score",
        ]
    ]
    for g in graded:
        for student in _students([g], roster):
            row = g.rows.get(student) or {"total": "0", "final": "0", "submitted_at": ""}
            person = roster.get(student) if roster is not None else None
            first, _, last = (person.name if person else "").rpartition(" ")
            due = deadlines.deadline_for(g.assignment, student)
            penalty = gradebook.fmt(float(row["total"]) - float(row["final"]))
            rows.append(
                [
                    g.assignment.id,
                    deadlines.iso(due) if due else "",
                    row["submitted_at"],
                    student,
                    last,
                    first,
                    person.email if person else "",
                    row["total"],
                    penalty,
                    row["final"],
                    g.points,
                ]
            )
    return _csv(rows)


def course_table(graded: list[Graded], roster) -> str:
    rows = [["student", "name", "email", "section"] + [g.assignment.id for g in graded] + ["total"]]
    students = _students(graded, roster)
    if roster is not None:  # and anyone graded who is not on it, at the end of their own rows
        students = students + sorted({s for g in graded for s in g.rows} - set(students))
    for student in students:
        person = roster.get(student) if roster is not None else None
        finals = [g.final(student) for g in graded]
        rows.append(
            [
                student,
                person.name if person else "",
                person.email if person else "",
                person.section if person else "",
                *finals,
                gradebook.fmt(sum(map(float, finals))),
            ]
        )
    return _csv(rows)


WRITERS = {"canvas": canvas, "moodle": moodle, "nbgrader": nbgrader, "course": course_table}


def export(course, fmt: str, *, graded: list[Path], out: Path) -> Path:
    """Write the `fmt` CSV of the graded folders.

    Args:
        course: the course, for its roster.
        fmt: canvas, moodle, nbgrader or course.
        graded: folders `qkv grade` wrote, one per assignment.
        out: the CSV to write.

    Returns:
        out.

    Raises:
        QkvError: an unknown format, no folder, --out a folder, no roster where the format
            needs one, or a folder that is not a graded one.
    """
    if fmt not in WRITERS:
        raise QkvError(f"unknown export format '{fmt}' (formats: {', '.join(FORMATS)})")
    if not graded:
        raise QkvError("give at least one --graded DIR")
    out = Path(out)
    if out.is_dir():
        raise QkvError(f"--out {out}: is a folder; give the CSV file to write")
    roster = roster_mod.load(course)
    if roster is None and fmt in NEEDS_ROSTER:
        raise QkvError(
            f"the {fmt} export matches students by the roster's ids: set `roster:` in course.yaml"
        )
    folders = [read_graded(course, folder) for folder in graded]
    ids = [g.assignment.id for g in folders]
    twice = next((i for i in ids if ids.count(i) > 1), None)
    if twice:
        raise QkvError(f"two --graded folders of assignment '{twice}'; give one per assignment")
    atomic_write(out, WRITERS[fmt](folders, roster))
    return out
