"""From the service's counted grades to the scores owed on each platform's line items.

Every round compares each linked student's counted grade (the final, after late credit, overrides
and the resubmission rule) with the score owed, so any change of it, however it came (a graded
hand-in, a late credit, an override, a regrade), is owed within a round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby

from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession

from qkv.course import deadlines
from qkv.course.config import Course
from qkv.results.gradebook import max_points
from qkv.serve import views
from qkv.serve.lti import platforms, scores
from qkv.serve.lti.models import LtiLink, LtiMember
from qkv.serve.lti.services import ServiceError, Services
from qkv.serve.models import Submission
from qkv.serve.service import Service

PENDING = ("queued", "grading")


@dataclass(frozen=True)
class Counted:
    """A student's counted grade on an assignment, and the hand-in it comes from."""

    final: float
    submission: str


# The service's counted grades of one assignment, by student (students with no graded hand-in absent).
CountedGrades = Callable[[DbSession, str], dict[str, Counted]]


def counted_grades(service: Service) -> CountedGrades:
    """The service's counted grades: the hand-in its gradebook counts, and the final the API gives
    for it (overrides are in its score, late credit applied). A student with a hand-in still
    queued or grading is left out until it settles, so a regrade posts no passing value."""

    def counted(db: DbSession, assignment_id: str) -> dict[str, Counted]:
        assignment = service.course.assignment(assignment_id)
        rows = db.scalars(
            select(Submission)
            .where(Submission.assignment == assignment_id)
            .order_by(Submission.student, Submission.created, Submission.id)
        )
        found: dict[str, Counted] = {}
        for student, group in groupby(rows, key=lambda r: r.student):
            handins = list(group)
            if any(r.status in PENDING for r in handins):
                continue
            chosen = views.counted(assignment, handins, service.course.resubmissions)
            if chosen is None or chosen.score is None:
                continue
            credit = deadlines.credit(assignment, student, chosen.submitted_at)
            found[student] = Counted(deadlines.final(chosen.score, credit), chosen.id)
        return found

    return counted


def reconcile(
    db: DbSession, course: Course, counted: CountedGrades, assignment: str | None = None
) -> int:
    """Owes every linked student their counted grade.

    Args:
        db: an open session.
        course: the service's course.
        counted: the service's counted grades.
        assignment: only this assignment's links (all when None).

    Returns:
        How many owed scores changed.
    """
    query = select(LtiLink)
    if assignment is not None:
        query = query.where(LtiLink.assignment == assignment)
    links = [link for link in db.scalars(query) if link.assignment in course_ids(course)]
    grades: dict[str, dict[str, Counted]] = {}
    changed = 0
    for link in links:
        if link.assignment not in grades:
            grades[link.assignment] = counted(db, link.assignment)
        maximum = max_points(course.assignment(link.assignment))
        for member in db.scalars(select(LtiMember).where(LtiMember.link_id == link.id)):
            grade = grades[link.assignment].get(member.student)
            if grade is None:
                continue
            comment = f"Feedback: {link.tool_url}/s/{grade.submission}"
            changed += scores.owe(
                db,
                link=link,
                student=member.student,
                user_sub=member.user_sub,
                given=grade.final,
                maximum=maximum,
                comment=comment,
            )
    return changed


def course_ids(course: Course) -> set[str]:
    return {a.id for a in course.assignments}


def lineitem_of(services: Services, course: Course) -> Callable[[DbSession, LtiLink], str]:
    """The link's line item: the launch's, else the one found or made by resourceId (then kept)."""

    def find(db: DbSession, link: LtiLink) -> str:
        if link.lineitem_url:
            return link.lineitem_url
        if not link.lineitems_url:
            raise ServiceError(
                f"the launches of {link.assignment} in {link.context_id} named no line items "
                "service (AGS): turn it on for the tool in the LMS",
                status=400,
            )
        assignment = course.assignment(link.assignment)
        link.lineitem_url = services.find_or_create_lineitem(
            platforms.by_id(db, link.platform_id),
            link.lineitems_url,
            resource_id=assignment.id,
            label=assignment.title,
            maximum=max_points(assignment),
        )
        return link.lineitem_url

    return find
