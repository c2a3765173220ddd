"""From the service's counted grades to the scores owed on each platform's line items.

Every round compares each linked student's counted grade (the final, after late credit, overrides
and the resubmission rule) with the score owed, so any change of it, however it came (a graded
hand-in, a late credit, an override, a regrade), is owed within a round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession

from qkv.course import deadlines
from qkv.course.config import Course
from qkv.results.gradebook import max_points
from qkv.serve.lti import platforms, scores
from qkv.serve.lti.models import LtiLink, LtiMember
from qkv.serve.lti.services import ServiceError, Services
from qkv.serve.models import Submission


@dataclass(frozen=True)
class Counted:
    """A student's counted grade on an assignment, and the hand-in it comes from."""

    final: float
    submission: str


# The service's counted grades of one assignment, by student (students with no graded hand-in absent).
CountedGrades = Callable[[DbSession, str], dict[str, Counted]]


def counted_from_submissions(course: Course) -> CountedGrades:
    """Counted grades from the graded hand-ins: late credit applied, then `resubmissions` (the last
    hand-in, or the best final with the later one on a tie), as a batch counts them."""

    def counted(db: DbSession, assignment_id: str) -> dict[str, Counted]:
        assignment = course.assignment(assignment_id)
        rows = db.execute(
            select(Submission.id, Submission.student, Submission.submitted_at, Submission.score)
            .where(
                Submission.assignment == assignment_id,
                Submission.status == "graded",
                Submission.score.is_not(None),
            )
            .order_by(Submission.created, Submission.id)
        )
        found: dict[str, Counted] = {}
        for sub_id, student, submitted_at, total in rows:
            credit = deadlines.credit(assignment, student, submitted_at or None)
            grade = Counted(deadlines.final(float(total), credit), str(sub_id))
            before = found.get(student)
            if course.resubmissions != "best" or before is None or grade.final >= before.final:
                found[student] = grade
        return found

    return counted


def reconcile(
    db: DbSession, course: Course, counted: CountedGrades, assignment: str | None = None
) -> int:
    """Owes every linked student their counted grade; how many scores changed."""
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
