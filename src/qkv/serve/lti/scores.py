"""Scores owed to platforms: kept in the database until a platform has taken them.

A change of a student's counted grade raises the version of their row; the sender posts the newest
version and records it as sent only once the platform answered. A platform that is down (no answer,
5xx) is paused with a doubling backoff and none of its scores is dropped; a score the platform
refuses alone (another 4xx) waits on its own backoff while the others go.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm import sessionmaker

from qkv.serve.lti import platforms
from qkv.serve.lti.models import LtiLink, LtiPlatform, LtiScore, LtiSent
from qkv.serve.lti.services import ServiceError, Services

BACKOFF_FIRST_S = 2.0
BACKOFF_MAX_S = 10.0


def backoff(failures: int) -> float:
    return float(min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** max(0, failures - 1)))


def owe(
    db: DbSession,
    *,
    link: LtiLink,
    student: str,
    user_sub: str,
    given: float,
    maximum: float,
    comment: str,
) -> bool:
    """Records the score `student` is owed on `link`; True when it differs from the one owed before.

    Args:
        db: an open session.
        link: the line item's link.
        student: the roster id.
        user_sub: the student's user id on the platform.
        given: the counted grade (the final, after late credit).
        maximum: the assignment's points.
        comment: the text shown beside the score (a link to the feedback page).

    Returns:
        Whether a new version is owed.
    """
    row = db.scalar(
        select(LtiScore).where(LtiScore.link_id == link.id, LtiScore.student == student)
    )
    now = time.time()
    if row is None:
        db.add(
            LtiScore(
                link_id=link.id,
                student=student,
                user_sub=user_sub,
                given=given,
                maximum=maximum,
                comment=comment,
                changed=now,
                version=1,
                sent_version=0,
            )
        )
        return True
    if (row.given, row.maximum, row.user_sub, row.comment) == (given, maximum, user_sub, comment):
        return False
    row.given, row.maximum, row.user_sub, row.comment = given, maximum, user_sub, comment
    row.changed = max(
        now, row.changed + 0.001
    )  # a platform keeps the score of the latest timestamp
    row.version += 1
    row.attempts, row.retry_at, row.last_error = 0, 0.0, ""
    return True


def body(row: LtiScore) -> dict[str, Any]:
    """The AGS score a row stands for."""
    stamp = datetime.fromtimestamp(row.changed, UTC).isoformat(timespec="milliseconds")
    return {
        "userId": row.user_sub,
        "scoreGiven": row.given,
        "scoreMaximum": row.maximum,
        "comment": row.comment,
        "timestamp": stamp.replace("+00:00", "Z"),
        "activityProgress": "Submitted",
        "gradingProgress": "FullyGraded",
    }


@dataclass
class Round:
    """What one round of sending did."""

    sent: int = 0
    failed: int = 0
    waiting: int = 0  # still owed after the round

    def line(self) -> str:
        return f"{self.sent} score(s) sent, {self.failed} failed, {self.waiting} still owed"


@dataclass(frozen=True)
class _Due:
    score_id: int
    version: int
    link_id: int
    platform_id: int
    payload: dict[str, Any]


def _due(db: DbSession, now: float, force: bool, assignment: str | None) -> list[_Due]:
    query = (
        select(LtiScore, LtiLink, LtiPlatform)
        .join(LtiLink, LtiLink.id == LtiScore.link_id)
        .join(LtiPlatform, LtiPlatform.id == LtiLink.platform_id)
        .where(LtiScore.sent_version < LtiScore.version)
        .order_by(LtiScore.changed)
    )
    if assignment is not None:
        query = query.where(LtiLink.assignment == assignment)
    if not force:
        query = query.where(LtiPlatform.retry_at <= now, LtiScore.retry_at <= now)
    return [
        _Due(score.id, score.version, link.id, platform.id, body(score))
        for score, link, platform in db.execute(query)
    ]


def send_owed(
    sessions: sessionmaker[DbSession],
    services: Services,
    *,
    lineitem_of: Callable[[DbSession, LtiLink], str],
    force: bool = False,
    assignment: str | None = None,
) -> Round:
    """Posts every owed score whose platform is not paused (every one with `force`).

    Args:
        sessions: the service's database sessions.
        services: the platform client.
        lineitem_of: the link's line item URL, found or made (see grades.lineitem_of).
        force: send even to platforms and scores still in their backoff.
        assignment: only this assignment's scores.

    Returns:
        What was sent, what failed, and what is still owed.
    """
    outcome = Round()
    with sessions.begin() as db:
        due = _due(db, time.time(), force, assignment)
    down: set[int] = set()
    for item in due:
        if item.platform_id in down:
            continue
        error: ServiceError | None = None
        try:
            with sessions.begin() as db:
                link = db.get(LtiLink, item.link_id)
                assert link is not None
                platform = platforms.by_id(db, item.platform_id)
                lineitem = lineitem_of(db, link)
            status = services.post_score(platform, lineitem, item.payload)
        except ServiceError as e:
            error = e
        with sessions.begin() as db:
            _record(db, item, error, None if error else status)
        if error is None:
            outcome.sent += 1
        else:
            outcome.failed += 1
            if error.platform_down:
                down.add(item.platform_id)
                if error.status == 401:
                    services.forget_tokens()
    with sessions.begin() as db:
        outcome.waiting = len(_due(db, time.time(), True, assignment))
    return outcome


def _record(db: DbSession, item: _Due, error: ServiceError | None, status: int | None) -> None:
    score, platform = db.get(LtiScore, item.score_id), db.get(LtiPlatform, item.platform_id)
    assert score is not None and platform is not None
    now = time.time()
    db.add(
        LtiSent(
            at=now,
            link_id=item.link_id,
            student=score.student,
            given=float(item.payload["scoreGiven"]),
            maximum=float(item.payload["scoreMaximum"]),
            outcome=str(status) if error is None else str(error).splitlines()[0][:500],
        )
    )
    if error is None:
        score.sent_version = max(score.sent_version, item.version)
        score.attempts, score.retry_at, score.last_error = 0, 0.0, ""
        platform.failures, platform.retry_at, platform.last_error = 0, 0.0, ""
        return
    score.attempts += 1
    score.last_error = str(error)[:500]
    if error.platform_down:
        platform.failures += 1
        platform.retry_at = now + backoff(platform.failures)
        platform.last_error = str(error)[:500]
    else:
        score.retry_at = now + backoff(score.attempts)
