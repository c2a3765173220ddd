"""Who a launch or a membership is: a roster student (matched by `sub`, then email or sourcedid, or
added) or a staff member, each with the service's own sign-in token so a launch opens a session.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session as DbSession

from qkv.course import layout
from qkv.course.roster import Roster
from qkv.serve import people as serve_people
from qkv.serve.lti.models import LtiUser
from qkv.serve.lti.verify import Refused
from qkv.serve.models import Staff, Student, Token

log = logging.getLogger("qkv.serve.lti")
STUDENT, STAFF = serve_people.STUDENT, serve_people.STAFF


@dataclass(frozen=True)
class Member:
    """A platform user, as a launch's claims or a membership list name them."""

    platform_id: int
    sub: str
    name: str
    email: str
    sourcedid: str
    staff: bool


def _slug(text: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._@+-]+", "-", text).strip("-.")[:60]
    return slug if slug and slug[0].isalnum() else ""


def _free_id(db: DbSession, model: type[Student] | type[Staff], wanted: str) -> str:
    column = Student.id if model is Student else Staff.name
    base = wanted if layout.is_valid_id(wanted) else "lti-user"
    candidate, n = base, 1
    while db.scalar(select(column).where(column == candidate)) is not None:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _roster_match(db: DbSession, roster: Roster | None, member: Member) -> str | None:
    """The roster student this member is: by email, then by sourcedid (id or SIS id)."""
    email = member.email.strip().lower()
    if roster is not None:
        for s in roster.students:
            if email and s.email.strip().lower() == email:
                return s.id
        for s in roster.students:
            if member.sourcedid and member.sourcedid in (s.id, s.sis_id, s.sis_login_id):
                return s.id
    if email:
        found = db.scalar(select(Student.id).where(func.lower(Student.email) == email))
        if found is not None:
            return str(found)
    if member.sourcedid and db.get(Student, member.sourcedid) is not None:
        return member.sourcedid
    return None


def _student(db: DbSession, roster: Roster | None, member: Member) -> tuple[str, bool]:
    matched = _roster_match(db, roster, member)
    if matched is not None:
        if db.get(Student, matched) is None:
            on_roster = (
                next((s for s in roster.students if s.id == matched), None) if roster else None
            )
            db.add(
                Student(
                    id=matched,
                    name=on_roster.name if on_roster else member.name,
                    email=on_roster.email if on_roster else member.email,
                    created=time.time(),
                )
            )
        return matched, False
    wanted = _slug(member.sourcedid) or _slug(member.email.split("@")[0]) or _slug(member.name)
    new_id = _free_id(db, Student, wanted)
    db.add(Student(id=new_id, name=member.name, email=member.email, created=time.time()))
    log.warning("LTI: %s (%s) is not on the roster; added as student %s", member.name,
                member.email or member.sub, new_id)  # fmt: skip
    return new_id, True


def _staff(db: DbSession, member: Member) -> str:
    wanted = _slug(member.email.split("@")[0]) or _slug(member.name) or "lti-staff"
    name = _free_id(db, Staff, wanted)
    db.add(Staff(name=name, created=time.time()))
    return name


def link_member(db: DbSession, roster: Roster | None, member: Member) -> LtiUser:
    """The service's person for a platform user, matched or added once and kept by `sub`.

    Args:
        db: an open session.
        roster: the course's roster, if it has one.
        member: the platform's user.

    Returns:
        The user's row: its kind (student or staff) and id in the service.
    """
    row = db.scalar(
        select(LtiUser).where(LtiUser.platform_id == member.platform_id, LtiUser.sub == member.sub)
    )
    kind = STAFF if member.staff else STUDENT
    if row is not None and row.kind == kind:
        row.name, row.email = member.name or row.name, member.email or row.email
        return row
    if member.staff:
        subject, added = _staff(db, member), False
    else:
        subject, added = _student(db, roster, member)
    if row is None:
        row = LtiUser(platform_id=member.platform_id, sub=member.sub)
        db.add(row)
    row.kind, row.subject, row.added = kind, subject, added
    row.name, row.email = member.name, member.email
    db.flush()
    return row


def sign_in_token(db: DbSession, user: LtiUser) -> int:
    """The id of a live token for the person, made for launches (its text is never shown)."""
    if user.kind == STAFF:
        staff = db.get(Staff, user.subject)
        if staff is None or staff.revoked is not None:
            raise Refused(f"staff member {user.subject}'s access to this service was revoked")
    found = db.scalar(
        select(Token.id).where(
            Token.kind == user.kind, Token.subject == user.subject, Token.revoked.is_(None)
        )
    )
    if found is not None:
        return int(found)
    token = Token(
        digest=serve_people.digest(serve_people.new_token()),
        kind=user.kind,
        subject=user.subject,
        created=time.time(),
    )
    db.add(token)
    db.flush()
    return token.id
