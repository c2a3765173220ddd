"""Grader's adjustments made on the staff page: rows of an overrides file kept in the database.

Each is checked as a row of `overrides.csv` would be, kept in the audit log, and applied after
grading to the student's hand-ins, which are regraded at once so every page shows it.
"""

from __future__ import annotations

import csv
import io
import time

from sqlalchemy import select

from qkv.results import overrides as overrides_mod
from qkv.serve.models import Adjustment, Audit, Submission
from qkv.serve.queue import requeue

NAME = "adjustment"


def _csv(rows) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(overrides_mod.HEADER)
    writer.writerows(rows)
    return buf.getvalue()


def overrides(connection, assignment, student: str) -> tuple:
    """The student's adjustments of the assignment, oldest first, as overrides.Override.

    Args:
        connection: an open database connection.
        assignment: the course's assignment.
        student: the student's id.
    """
    rows = connection.execute(
        select(Adjustment.student, Adjustment.part, Adjustment.points, Adjustment.comment)
        .where(Adjustment.assignment == assignment.id, Adjustment.student == student)
        .order_by(Adjustment.id)
    ).all()
    return overrides_mod.parse(_csv(rows), name=NAME, assignment=assignment) if rows else ()


def add(service, actor: str, assignment, student: str, part: str, points: str, comment: str) -> int:
    """Record an adjustment (a QkvError when it is not a valid overrides row); returns how many
    of the student's hand-ins are queued again to show it.

    Args:
        service: the running service (qkv.serve.service.Service).
        actor: who adjusts (a staff name).
        assignment: the course's assignment.
        student: the student's id.
        part: a part id, or quiz.
        points: 15, +2 or -3, as in overrides.csv.
        comment: why, shown to the student.
    """
    row = (student.strip(), part.strip(), points.strip(), " ".join(comment.split()))
    overrides_mod.parse(_csv([row]), name=NAME, assignment=assignment)
    with service.sessions.begin() as db:
        db.add(
            Adjustment(
                student=row[0],
                assignment=assignment.id,
                part=row[1],
                points=row[2],
                comment=row[3],
                actor=actor,
                at=time.time(),
            )
        )
        ids = list(
            db.scalars(
                select(Submission.id).where(
                    Submission.assignment == assignment.id, Submission.student == row[0]
                )
            )
        )
        for submission_id in ids:
            requeue(db, submission_id)
        db.add(
            Audit(
                at=time.time(),
                actor=actor,
                action="override",
                detail=f"{assignment.id}: {row[0]} {row[1]} {row[2]}"
                + (f" ({row[3]})" if row[3] else ""),
            )
        )
    service.wake()
    return len(ids)
