"""What a hand-in looks like to whoever asks: its JSON, checks filtered by `feedback.visibility`,
and which of a student's hand-ins counts (`resubmissions: last | best`, after late credit).
"""

from __future__ import annotations

import json

from sqlalchemy import select

from qkv.course import deadlines
from qkv.results import gradebook
from qkv.results.records import StudentResult
from qkv.serve.models import Submission
from qkv.serve.people import Person

HIDDEN_NOTE = "The checks are not shown yet: they appear after the due date."


def visible_to(person: Person, row: Submission) -> bool:
    """Staff see every hand-in; a student only their own (any other is not found)."""
    return person.is_staff or person.id == row.student


def checks_shown(service, person: Person, assignment, student: str) -> bool:
    """Whether the checks of a result are shown to `person`: staff always; students as
    `feedback.visibility` says (hidden never, after_due_date once their deadline has passed).

    Args:
        service: the running service (qkv.serve.service.Service).
        person: who asks.
        assignment: the course's assignment.
        student: whose hand-in it is.
    """
    if person.is_staff:
        return True
    visibility = service.course.feedback.visibility
    if visibility == "hidden":
        return False
    if visibility == "after_due_date":
        due = deadlines.deadline_for(assignment, student)
        return due is None or service.now() > due
    return True


def result_of(row: Submission) -> StudentResult:
    """The result of a graded hand-in (`counted` gives only those)."""
    if not row.result:
        raise ValueError(f"hand-in {row.id} has no result")
    return StudentResult.from_json(json.loads(row.result))


def as_json(service, person: Person, row: Submission) -> dict:
    """The API's form of a hand-in.

    Args:
        service: the running service (qkv.serve.service.Service).
        person: who asks (their role decides what of the checks is shown).
        row: the hand-in.
    """
    assignment = service.course.assignment(row.assignment)
    credit = deadlines.credit(assignment, row.student, row.submitted_at)
    results = json.loads(row.result) if row.result else None
    if results is not None and not checks_shown(service, person, assignment, row.student):
        results = {**results, "tests": [], "output": HIDDEN_NOTE}
    graded = row.status == "graded" and row.score is not None
    return {
        "id": row.id,
        "student": row.student,
        "assignment": row.assignment,
        "status": row.status,
        "submitted_at": row.submitted_at,
        "score": row.score if graded else None,
        "max_score": gradebook.max_points(assignment),
        "credit": credit,
        "final": deadlines.final(row.score or 0.0, credit) if graded else None,
        "results": results,
        "feedback_url": f"/s/{row.id}",
        "error": row.error if row.status == "failed" else "",
    }


def hand_ins(db, student: str, assignment_id: str) -> list[Submission]:
    """A student's hand-ins to an assignment, oldest first.

    Args:
        db: an open database session.
        student: the student's id.
        assignment_id: the assignment.
    """
    return list(
        db.scalars(
            select(Submission)
            .where(Submission.student == student, Submission.assignment == assignment_id)
            .order_by(Submission.created, Submission.id)
        )
    )


def counted(assignment, rows: list[Submission], policy: str) -> Submission | None:
    """The graded hand-in that counts: the last, or the best after late credit (later on a tie).

    Args:
        assignment: the course's assignment.
        rows: the student's hand-ins, oldest first.
        policy: course.yaml's resubmissions, last or best.
    """
    graded = [r for r in rows if r.status == "graded" and r.result]
    if not graded:
        return None
    if policy != "best":
        return graded[-1]

    def final(row: Submission) -> float:
        return deadlines.final(
            row.score or 0.0, deadlines.credit(assignment, row.student, row.submitted_at)
        )

    best = max(final(r) for r in graded)
    return [r for r in graded if final(r) == best][-1]
