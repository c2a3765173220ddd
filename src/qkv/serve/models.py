"""The service's tables: people and their tokens and sessions, hand-ins, grading jobs, the audit log.

Times are seconds since the epoch (UTC) as floats, the same on SQLite and PostgreSQL; a hand-in's
time as the batch writes it (`2026-12-15T23:59:00Z`) is kept beside it for the results.
"""

from __future__ import annotations

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Student(Base):
    __tablename__ = "students"

    id: Mapped[str] = mapped_column(String(100), primary_key=True)  # the roster's id
    name: Mapped[str] = mapped_column(String(200), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    created: Mapped[float] = mapped_column(Float)


class Staff(Base):
    __tablename__ = "staff"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    created: Mapped[float] = mapped_column(Float)
    revoked: Mapped[float | None] = mapped_column(Float, nullable=True)


class Token(Base):
    """A sign-in token, stored as its SHA-256 only; `kind` is student or staff, `subject` their id."""

    __tablename__ = "tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(10))
    subject: Mapped[str] = mapped_column(String(100), index=True)
    created: Mapped[float] = mapped_column(Float)
    revoked: Mapped[float | None] = mapped_column(Float, nullable=True)


class Session(Base):
    """A browser's sign-in: the signed cookie names this row; revoking the token ends it."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    token_id: Mapped[int] = mapped_column(ForeignKey("tokens.id"), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created: Mapped[float] = mapped_column(Float)
    expires: Mapped[float] = mapped_column(Float)


class Submission(Base):
    """One hand-in: its files (by content hash), its status and, once graded, its result."""

    __tablename__ = "submissions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    student: Mapped[str] = mapped_column(String(100))
    assignment: Mapped[str] = mapped_column(String(100))
    created: Mapped[float] = mapped_column(Float)
    submitted_at: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(10), default="queued")
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)  # results.json, strict JSON
    page: Mapped[str | None] = mapped_column(Text, nullable=True)  # the batch's feedback page
    error: Mapped[str] = mapped_column(Text, default="")  # why the grader could not grade it
    graded: Mapped[float | None] = mapped_column(Float, nullable=True)
    gradings: Mapped[int] = mapped_column(Integer, default=0)  # results committed: 1 per job

    __table_args__ = (Index("ix_submissions_student", "student", "assignment", "created"),)


class SubmissionFile(Base):
    __tablename__ = "submission_files"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id"), index=True)
    name: Mapped[str] = mapped_column(String(300))  # as the browser sent it: data, never a path
    digest: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)


class Job(Base):
    """A grading of one submission, leased by a grading process that renews `lease_until`."""

    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id"), index=True)
    state: Mapped[str] = mapped_column(String(10), default="queued")  # queued | leased | done
    owner: Mapped[str] = mapped_column(String(200), default="")
    lease_until: Mapped[float] = mapped_column(Float, default=0.0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[float] = mapped_column(Float)
    finished: Mapped[float | None] = mapped_column(Float, nullable=True)

    __table_args__ = (Index("ix_jobs_state", "state", "id"),)


class Adjustment(Base):
    """A grader's change of one student's part, as a row of an overrides file: applied after
    grading to every hand-in of theirs (a regrade keeps it)."""

    __tablename__ = "adjustments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    student: Mapped[str] = mapped_column(String(100))
    assignment: Mapped[str] = mapped_column(String(100))
    part: Mapped[str] = mapped_column(String(100))
    points: Mapped[str] = mapped_column(String(20))  # "15", "+2" or "-3", as in overrides.csv
    comment: Mapped[str] = mapped_column(Text, default="")
    actor: Mapped[str] = mapped_column(String(100))
    at: Mapped[float] = mapped_column(Float)


class Audit(Base):
    """Who changed a grade or asked for a regrade, and when: the staff page lists them."""

    __tablename__ = "audit"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[float] = mapped_column(Float)
    actor: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(40))
    detail: Mapped[str] = mapped_column(Text, default="")
