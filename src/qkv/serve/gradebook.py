"""The class's gradebook from the counted hand-ins: `qkv grade`'s header and rules, and the
Canvas and Moodle imports made from it as `qkv export` makes them."""

from __future__ import annotations

import csv
import io
import tempfile
from itertools import groupby
from pathlib import Path

from sqlalchemy import select

from qkv.course import layout
from qkv.course import roster as roster_mod
from qkv.errors import QkvError
from qkv.integrations import lms
from qkv.reports import items
from qkv.results import gradebook
from qkv.serve.models import Submission
from qkv.serve.views import counted, result_of


def rows(service, db, assignment) -> list[list[str]]:
    """One row per roster student (and per student who handed in without being on it), sorted.

    Args:
        service: the running service (qkv.serve.service.Service).
        db: an open database session.
        assignment: the course's assignment.
    """
    roster = roster_mod.load(service.course)
    found = db.scalars(
        select(Submission)
        .where(Submission.assignment == assignment.id)
        .order_by(Submission.student, Submission.created, Submission.id)
    )
    by_student = {
        student: counted(assignment, list(group), service.course.resubmissions)
        for student, group in groupby(found, key=lambda r: r.student)
    }
    students = set(by_student) | set(roster.ids if roster else ())
    out = []
    for student in sorted(students):
        chosen = by_student.get(student)
        if chosen is None:
            out.append(gradebook.missing_row(assignment, student))
            continue
        row = gradebook.row(assignment, result_of(chosen))
        out.append(row if roster is None or student in roster.ids else gradebook.off_roster(row))
    return out


def csv_text(service, db, assignment) -> str:
    """The class's gradebook.csv: `qkv grade`'s header and rules.

    Args:
        service: the running service (qkv.serve.service.Service).
        db: an open database session.
        assignment: the course's assignment.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(gradebook.header(assignment))
    writer.writerows(rows(service, db, assignment))
    return buf.getvalue()


def item_analysis(service, db, assignment) -> list:
    """Each quiz question's and check's statistics over the counted hand-ins (reports.items).

    Args:
        service: the running service (qkv.serve.service.Service).
        db: an open database session.
        assignment: the course's assignment.
    """
    tally = items.ItemTally()
    found = db.scalars(
        select(Submission)
        .where(Submission.assignment == assignment.id)
        .order_by(Submission.student, Submission.created, Submission.id)
    )
    for _, group in groupby(found, key=lambda r: r.student):
        chosen = counted(assignment, list(group), service.course.resubmissions)
        if chosen is not None:
            tally.add(result_of(chosen))
    return tally.analysis()


def items_text(service, db, assignment) -> str:
    """items.csv as `qkv grade` writes it, of the class as it stands.

    Args:
        service: the running service (qkv.serve.service.Service).
        db: an open database session.
        assignment: the course's assignment.
    """
    with tempfile.TemporaryDirectory(prefix="qkv-items-") as tmp:
        path = Path(tmp) / layout.ITEMS_FILE
        items.write_csv(path, item_analysis(service, db, assignment))
        return path.read_text(encoding="utf-8")


def lms_text(service, db, assignment, fmt: str) -> str:
    """Canvas's or Moodle's import file of this assignment (both match students by the roster).

    Args:
        service: the running service (qkv.serve.service.Service).
        db: an open database session.
        assignment: the course's assignment.
        fmt: canvas or moodle.
    """
    roster = roster_mod.load(service.course)
    if roster is None:
        raise QkvError(f"{fmt} matches students by the roster: course.yaml has no roster")
    header = gradebook.header(assignment)
    graded = lms.Graded(
        assignment, {r[0]: dict(zip(header, r)) for r in rows(service, db, assignment)}
    )
    return lms.WRITERS[fmt]([graded], roster)
