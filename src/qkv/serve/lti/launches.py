"""What an accepted launch changes: the person it signs in, the link it names, where it goes."""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession

from qkv.course import roster as roster_mod
from qkv.serve.lti import claims as c
from qkv.serve.lti.models import LtiLink, LtiMember
from qkv.serve.lti.people import Member, link_member, sign_in_token
from qkv.serve.lti.verify import Launch, Refused
from qkv.serve.people import Person
from qkv.serve.service import Service


def _assignment(service: Service, launch: Launch) -> str | None:
    wanted = launch.custom.get("assignment", "").strip()
    if wanted and wanted not in {a.id for a in service.course.assignments}:
        raise Refused(f"the link's assignment {wanted!r} is not an assignment of this course")
    return wanted or None


def upsert_link(db: DbSession, launch: Launch, assignment: str, *, tool_url: str) -> LtiLink:
    """The link of this context and assignment, with the service URLs the launch names.

    Args:
        db: an open session.
        launch: the verified launch.
        assignment: the assignment it opens.
        tool_url: the service's address, for the links in score comments.

    Returns:
        The link's row, made or brought up to date.
    """
    row = db.scalar(
        select(LtiLink).where(
            LtiLink.platform_id == launch.platform.id,
            LtiLink.context_id == launch.context_id,
            LtiLink.assignment == assignment,
        )
    )
    if row is None:
        row = LtiLink(
            platform_id=launch.platform.id,
            context_id=launch.context_id,
            assignment=assignment,
            deployment_id=launch.deployment_id,
            updated=time.time(),
        )
        db.add(row)
    ags = launch.ags
    row.deployment_id, row.updated = launch.deployment_id, time.time()
    row.context_title = launch.context_title or row.context_title
    row.resource_link_id = launch.resource_link_id or row.resource_link_id
    row.lineitems_url = str(ags.get("lineitems") or row.lineitems_url or "")
    row.lineitem_url = str(ags.get("lineitem") or row.lineitem_url or "")
    if isinstance(ags.get("scope"), list):
        row.scopes = " ".join(str(s) for s in ags["scope"])
    row.memberships_url = launch.memberships_url or row.memberships_url
    row.tool_url = tool_url
    db.flush()
    return row


def add_member(db: DbSession, link: LtiLink, student: str, sub: str) -> None:
    """Makes `student` a member of the link's context, owed its scores as user `sub`.

    Args:
        db: an open session.
        link: the link.
        student: the student's id in the service.
        sub: their user id on the platform.
    """
    row = db.scalar(
        select(LtiMember).where(LtiMember.link_id == link.id, LtiMember.student == student)
    )
    if row is None:
        db.add(LtiMember(link_id=link.id, student=student, user_sub=sub))
    else:
        row.user_sub = sub


def record_launch(
    db: DbSession, service: Service, launch: Launch, *, tool_url: str
) -> tuple[str, Person]:
    """Signs the launch's user in and records its link.

    Args:
        db: an open session.
        service: the running service.
        launch: the verified launch.
        tool_url: the service's address.

    Returns:
        Where to send the browser, and the person to sign in.

    Raises:
        Refused: roles the tool has no place for, or an assignment the course does not have.
    """
    if not (launch.staff or launch.learner):
        raise Refused("the launch's roles are neither Learner nor Instructor or TeachingAssistant")
    deep = launch.message_type == c.DEEP_LINKING_REQUEST
    if deep and not launch.staff:
        raise Refused("only an instructor or teaching assistant can add an assignment to a course")
    member = Member(
        platform_id=launch.platform.id,
        sub=launch.sub,
        name=launch.name,
        email=launch.email,
        sourcedid=launch.sourcedid,
        staff=launch.staff,
    )
    user = link_member(db, roster_mod.load(service.course), member)
    person = Person(user.kind, user.subject, sign_in_token(db, user))
    if deep:
        return "", person
    assignment = _assignment(service, launch)
    if assignment is None:
        if launch.staff:
            return "/staff", person
        raise Refused("the link names no assignment (its custom parameter assignment=<id>)")
    link = upsert_link(db, launch, assignment, tool_url=tool_url)
    if not launch.staff:
        add_member(db, link, user.subject, launch.sub)
        return f"/a/{assignment}", person
    return "/staff", person
