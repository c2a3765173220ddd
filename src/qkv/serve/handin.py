"""Taking a hand-in: who may, what is too much or too late, what can be graded; then queue it.

The checks, in order, each one line for the student: the assignment exists (404), the work is not
past the last late window (403), the upload fits `serve.max_upload_kb` (413), the student has hand-ins
left this hour (429, with Retry-After), and the files hold something the batch would grade (422).
"""

from __future__ import annotations

import math
import secrets
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import func, select

from qkv.course import deadlines, layout
from qkv.errors import QkvError
from qkv.intake.discover import discover
from qkv.serve import queue, store
from qkv.serve.models import Submission, SubmissionFile
from qkv.serve.service import Service

HOUR_S = 3600


class Refused(Exception):
    """A hand-in not taken: the HTTP status, one line, and headers (Retry-After)."""

    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


@dataclass(frozen=True)
class Upload:
    name: str
    data: bytes


def assignment_of(service: Service, assignment_id: str):
    try:
        return service.course.assignment(assignment_id)
    except QkvError:
        raise Refused(404, f"unknown assignment '{assignment_id}'") from None


def limit_bytes(service: Service) -> int:
    return service.course.serve.max_upload_kb * 1024


def closes(assignment, student: str) -> datetime | None:
    """When the student's last late window (or, without one, their deadline) ends; None: never."""
    due = deadlines.deadline_for(assignment, student)
    if due is None:
        return None
    if not assignment.late:
        return due
    shift = due - deadlines.parse_date(assignment.deadline, where="deadline")
    return deadlines.parse_date(assignment.late[-1].until, where="late.until") + shift


def check_open(assignment, student: str, now: datetime) -> None:
    """Refuse (403) a hand-in after the student's last late window.

    Args:
        assignment: the course's assignment.
        student: the student's id (their extension counts).
        now: the server's time.
    """
    end = closes(assignment, student)
    if end is not None and now > end:
        raise Refused(403, f"hand-ins for '{assignment.id}' closed at {deadlines.iso(end)}")


def check_rate(db, service: Service, student: str, assignment_id: str, now: float) -> None:
    """Refuse (429, with Retry-After) a hand-in over serve.submissions_per_hour.

    Args:
        db: an open database session.
        service: the running service (qkv.serve.service.Service).
        student: the student's id.
        assignment_id: the assignment handed in to.
        now: the server's time, in seconds since the epoch.
    """
    per_hour = service.course.serve.submissions_per_hour
    recent = select(Submission.created).where(
        Submission.student == student,
        Submission.assignment == assignment_id,
        Submission.created > now - HOUR_S,
    )
    count = db.scalar(select(func.count()).select_from(recent.subquery()))
    if count >= per_hour:
        oldest = db.scalar(select(func.min(recent.subquery().c.created)))
        wait = max(1, math.ceil(oldest + HOUR_S - now))
        raise Refused(
            429,
            f"{per_hour} hand-ins an hour at most; try again in {wait} s",
            {"Retry-After": str(wait)},
        )


def check_gradable(assignment, uploads: list[Upload]) -> None:
    """The files must hold code or quiz answers the batch would read from a submission folder."""
    names = [u.name for u in uploads]
    if not uploads:
        raise Refused(422, "no files: send them as multipart fields named 'files'")
    plain = [n for n in names if store.plain_name(n)]
    if len(set(plain)) != len(plain):
        twice = next(n for n in plain if plain.count(n) > 1)
        raise Refused(422, f"two files named {twice!r}")
    with tempfile.TemporaryDirectory(prefix="qkv-intake-") as tmp:
        folder = Path(tmp) / "student"
        folder.mkdir()
        for u in uploads:
            if store.plain_name(u.name):
                (folder / u.name).write_bytes(b"")  # discovery looks at names only here
        subs, _ = discover(Path(tmp), layout.submission_files(assignment), assignment.id)
    if not subs or (subs[0].code is None and subs[0].answers is None):
        wanted = " or ".join((*layout.submission_files(assignment), layout.ANSWERS_FILE))
        raise Refused(422, f"nothing to grade: send {wanted} (got {', '.join(names)[:200]})")


def accept(service: Service, student: str, assignment_id: str, uploads: list[Upload]) -> str:
    """Queue a hand-in of `student` and return its id, or raise Refused.

    Args:
        service: the running service (qkv.serve.service.Service).
        student: the student's id.
        assignment_id: the assignment handed in to.
        uploads: the files sent.
    """
    assignment = assignment_of(service, assignment_id)
    when = service.now()
    check_open(assignment, student, when)
    if sum(len(u.data) for u in uploads) > limit_bytes(service):
        raise Refused(413, f"the hand-in is over {service.course.serve.max_upload_kb} KiB")
    now = when.timestamp()
    with service.sessions.begin() as db:
        check_rate(db, service, student, assignment_id, now)
        check_gradable(assignment, uploads)
        submission_id = secrets.token_hex(8)
        db.add(
            Submission(
                id=submission_id,
                student=student,
                assignment=assignment_id,
                created=now,
                submitted_at=deadlines.iso(when),
                status=queue.QUEUED,
                error="",
                gradings=0,
            )
        )
        for u in uploads:
            digest = store.put(service.settings.uploads, u.data)
            db.add(
                SubmissionFile(
                    submission_id=submission_id, name=u.name[:300], digest=digest, size=len(u.data)
                )
            )
        db.flush()
        queue.enqueue(db, submission_id)
    service.wake()
    return submission_id
