"""Students and staff, and their sign-in tokens: made here, shown once, stored as hashes.

A token is 32 random bytes in URL-safe text; the database keeps its SHA-256, so a copy of the
database signs nobody in. Revoking a token ends every session it opened.
"""

from __future__ import annotations

import csv
import hashlib
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session as DbSession

from qkv.course import layout
from qkv.errors import QkvError
from qkv.results.records import atomic_write
from qkv.serve.models import Session, Staff, Student, Token

STUDENT, STAFF = "student", "staff"
INVITE_HEADER = ("student", "email", "token", "link")


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


TOKEN_PREFIX = "qkv_"


def new_token() -> str:
    """A sign-in token: recognisable by its prefix, and never read as an option (no leading -)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Person:
    """Who a token or session belongs to."""

    kind: str  # STUDENT or STAFF
    id: str  # the student id, or the staff member's name
    token_id: int

    @property
    def is_staff(self) -> bool:
        return self.kind == STAFF


def person_for(db: DbSession, token: str | None) -> Person | None:
    """The live token's owner, or None for no token, an unknown one or a revoked one."""
    if not token or len(token) > 200:
        return None
    row = db.scalar(select(Token).where(Token.digest == digest(token), Token.revoked.is_(None)))
    return Person(row.kind, row.subject, row.id) if row else None


def _revoke(db: DbSession, kind: str, subject: str) -> int:
    """Revoke the live tokens of one person and end their sessions; how many tokens were live."""
    ids = list(
        db.scalars(
            select(Token.id).where(
                Token.kind == kind, Token.subject == subject, Token.revoked.is_(None)
            )
        )
    )
    if ids:
        db.execute(delete(Session).where(Session.token_id.in_(ids)))
        db.execute(update(Token).where(Token.id.in_(ids)).values(revoked=time.time()))
    return len(ids)


def _issue(db: DbSession, kind: str, subject: str) -> str:
    token = new_token()
    db.add(Token(digest=digest(token), kind=kind, subject=subject, created=time.time()))
    return token


def add_staff(db: DbSession, name: str) -> str:
    """A new token for staff member `name` (added if new; an earlier token of theirs stays valid)."""
    if not layout.is_valid_id(name):
        raise QkvError(f"staff name {name!r}: not usable ({layout.ID_RULE})")
    staff = db.get(Staff, name)
    if staff is None:
        db.add(Staff(name=name, created=time.time()))
    else:
        staff.revoked = None
    return _issue(db, STAFF, name)


def revoke_staff(db: DbSession, name: str) -> int:
    staff = db.get(Staff, name)
    if staff is None:
        raise QkvError(f"no staff member named '{name}'")
    staff.revoked = time.time()
    return _revoke(db, STAFF, name)


def link(base_url: str, token: str) -> str:
    return f"{base_url.rstrip('/')}/login?token={quote(token)}"


def invite(db: DbSession, roster, *, base_url: str, rotate: bool, only: str | None = None):
    """Yield (student, email, token, link) for the roster's students that need a token: everyone
    without one, or with `rotate` everyone (only `only` when given), old tokens revoked.

    Args:
        db: an open database session.
        roster: the course's roster.
        base_url: the service's address, for the links.
        rotate: replace the tokens of those who have one.
        only: with rotate, only this student.
    """
    students = roster.students
    if only is not None:
        students = [s for s in students if s.id == only]
        if not students:
            raise QkvError(f"--student {only}: not on the roster")
    for s in students:
        row = db.get(Student, s.id)
        if row is None:
            db.add(Student(id=s.id, name=s.name, email=s.email, created=time.time()))
        else:
            row.name, row.email = s.name, s.email
        if rotate:
            _revoke(db, STUDENT, s.id)
        elif db.scalar(
            select(Token.id).where(
                Token.kind == STUDENT, Token.subject == s.id, Token.revoked.is_(None)
            )
        ):
            continue  # keeps the token sent before: tokens are shown once
        token = _issue(db, STUDENT, s.id)
        yield s.id, s.email, token, link(base_url, token)


def write_links(path: Path, rows) -> int:
    """links.csv: student,email,token,link; returns how many rows it holds."""
    import io  # noqa: PLC0415 - only writing links needs it

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(INVITE_HEADER)
    rows = list(rows)
    writer.writerows(rows)
    path = Path(path)
    if path.parent != Path():
        path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, buf.getvalue())
    return len(rows)
