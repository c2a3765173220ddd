"""NRPS: the memberships of the context an assignment was launched from, into the service's roster."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from qkv.course import roster as roster_mod
from qkv.errors import QkvError
from qkv.serve.lti import claims as c
from qkv.serve.lti import platforms
from qkv.serve.lti.launches import add_member
from qkv.serve.lti.models import LtiLink
from qkv.serve.lti.people import Member, link_member
from qkv.serve.lti.services import Services
from qkv.serve.service import Service


@dataclass
class Imported:
    """What reading the memberships did."""

    learners: int = 0
    added: list[str] = field(default_factory=list)  # students not on the roster, now in the service
    skipped: int = 0  # staff, and members no longer active

    def line(self, assignment: str) -> str:
        added = f" (not on the roster, added: {', '.join(self.added)})" if self.added else ""
        return (
            f"{assignment}: {self.learners} learner(s) read from the LMS, {len(self.added)} "
            f"added{added}; {self.skipped} staff or inactive member(s) left out"
        )


def import_memberships(service: Service, services: Services, assignment: str) -> Imported:
    """Every active learner of the contexts `assignment` was launched from becomes a student of
    the service (matched as a launch is) whose grade goes to that context's line item.

    Args:
        service: the running service.
        services: the platform client.
        assignment: the assignment whose contexts are read.

    Returns:
        How many learners were read, and which were added.

    Raises:
        QkvError: an unknown assignment, or one no launch named a memberships service for.
        ServiceError: the platform did not answer.
    """
    course_ids = {a.id for a in service.course.assignments}
    if assignment not in course_ids:
        raise QkvError(f"--assignment {assignment}: not an assignment of this course")
    with service.sessions() as db:
        links = [
            (link.id, platforms.by_id(db, link.platform_id), link.memberships_url)
            for link in db.scalars(select(LtiLink).where(LtiLink.assignment == assignment))
            if link.memberships_url
        ]
    if not links:
        raise QkvError(
            f"no launch of {assignment} named a memberships service (NRPS): open it from the LMS "
            "once, with the tool's Names and Role Provisioning scope on"
        )
    roster = roster_mod.load(service.course)
    outcome = Imported()
    for link_id, platform, url in links:
        members = services.memberships(platform, url)
        with service.sessions.begin() as db:
            link = db.get(LtiLink, link_id)
            assert link is not None
            for m in members:
                roles = [str(r) for r in m.get("roles", [])]
                active = str(m.get("status", "Active")) == "Active"
                if (
                    not active
                    or c.is_staff(roles)
                    or not c.is_learner(roles)
                    or not m.get("user_id")
                ):
                    outcome.skipped += 1
                    continue
                member = Member(
                    platform_id=platform.id,
                    sub=str(m["user_id"]),
                    name=str(m.get("name", "")),
                    email=str(m.get("email", "")),
                    sourcedid=str(m.get("lis_person_sourcedid", "")),
                    staff=False,
                )
                user = link_member(db, roster, member)
                add_member(db, link, user.subject, member.sub)
                outcome.learners += 1
                if user.added and user.subject not in outcome.added:
                    outcome.added.append(user.subject)
    return outcome
