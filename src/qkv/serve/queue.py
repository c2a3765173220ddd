"""The grading queue, in the database: jobs leased with a heartbeat, each result committed once.

A grading process leases the oldest queued job (or one whose lease lapsed: its holder was killed)
in one UPDATE, renews the lease while it grades, and commits the result only while the lease is
still its own, in the same transaction that marks the job done: a job whose lease passed to another
process is graded by that one alone.
"""

from __future__ import annotations

import os
import socket
import time

from sqlalchemy import and_, or_, select, update
from sqlalchemy.engine import Engine

from qkv.serve.models import Job, Submission

LEASE_S = 20.0  # a lease not renewed for this long goes back to the queue
HEARTBEAT_S = 3.0
QUEUED, LEASED, DONE = "queued", "leased", "done"


def owner_name(server_pid: int, worker: str) -> str:
    """Who holds a lease: this machine, the serving process and the grading process."""
    return f"{socket.gethostname()}:{server_pid}:{worker}"


def enqueue(db, submission_id: str) -> None:
    db.add(Job(submission_id=submission_id, state=QUEUED, owner="", created=time.time()))


def requeue(db, submission_id: str) -> None:
    """Grade a hand-in again (a regrade, an adjustment): it shows as queued, with a new job."""
    db.get(Submission, submission_id).status = QUEUED
    enqueue(db, submission_id)


def _free(now: float):
    return or_(Job.state == QUEUED, and_(Job.state == LEASED, Job.lease_until < now))


def lease(engine: Engine, owner: str) -> tuple[int, str] | None:
    """(job id, submission id) of the job this process now holds, or None when there is none."""
    now = time.time()
    candidate = select(Job.id).where(_free(now)).order_by(Job.id).limit(1)
    if engine.dialect.name == "postgresql":
        candidate = candidate.with_for_update(skip_locked=True)
    statement = (
        update(Job)
        .where(Job.id == candidate.scalar_subquery(), _free(now))
        .values(state=LEASED, owner=owner, lease_until=now + LEASE_S, attempts=Job.attempts + 1)
        .returning(Job.id, Job.submission_id)
    )
    with engine.begin() as connection:
        row = connection.execute(statement).first()
        if row is not None:
            connection.execute(
                update(Submission).where(Submission.id == row[1]).values(status="grading")
            )
    return (row[0], row[1]) if row else None


def renew(engine: Engine, job_id: int, owner: str) -> bool:
    """Extend this process's lease; False when it is no longer its own.

    Args:
        engine: the database.
        job_id: the leased job.
        owner: this grading process (queue.owner_name).
    """
    with engine.begin() as connection:
        done = connection.execute(
            update(Job)
            .where(Job.id == job_id, Job.owner == owner, Job.state == LEASED)
            .values(lease_until=time.time() + LEASE_S)
        )
    return done.rowcount == 1


def complete(engine: Engine, job_id: int, owner: str, submission_id: str, **values) -> bool:
    """Commit a grading's outcome (Submission columns) if the lease is still this process's.

    Args:
        engine: the database.
        job_id: the leased job.
        owner: this grading process (queue.owner_name).
        submission_id: the hand-in graded.
        values: the Submission columns to set (status, score, result, page, error).
    """
    now = time.time()
    with engine.begin() as connection:
        done = connection.execute(
            update(Job)
            .where(Job.id == job_id, Job.owner == owner, Job.state == LEASED)
            .values(state=DONE, finished=now)
        )
        if done.rowcount != 1:
            return False
        connection.execute(
            update(Submission)
            .where(Submission.id == submission_id)
            .values(graded=now, gradings=Submission.gradings + 1, **values)
        )
    return True


def give_back(engine: Engine, owner_prefix: str) -> int:
    """Put the leases of owners whose names start so back in the queue (a stop past its grace)."""
    held = and_(Job.state == LEASED, Job.owner.startswith(owner_prefix, autoescape=True))
    with engine.begin() as connection:
        connection.execute(
            update(Submission)
            .where(Submission.id.in_(select(Job.submission_id).where(held)))
            .values(status=QUEUED)
        )
        done = connection.execute(
            update(Job).where(held).values(state=QUEUED, owner="", lease_until=0.0)
        )
    return done.rowcount


def reclaim_dead(engine: Engine) -> int:
    """Give back the leases held by serving processes of this machine that are no longer running
    (a killed server's), so a restart grades them at once rather than when their leases lapse."""
    host = socket.gethostname()
    with engine.connect() as connection:
        owners = set(
            connection.scalars(
                select(Job.owner).where(Job.state == LEASED, Job.owner.startswith(f"{host}:"))
            )
        )
    count = 0
    for owner in owners:
        pid = owner.split(":")[1]
        if pid.isdigit() and not _alive(int(pid)):
            count += give_back(engine, f"{host}:{pid}:")
    return count


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def waiting(engine: Engine) -> int:
    with engine.connect() as connection:
        return len(list(connection.scalars(select(Job.id).where(Job.state != DONE))))
