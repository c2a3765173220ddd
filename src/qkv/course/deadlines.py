"""When work is due and what it is worth when late: the one owner of dates and late credit.

Dates in course.yaml are ISO 8601 with a time zone (`2026-12-15T23:59:00+00:00`, or `...Z`); a hand-in
time (timestamp.txt) may also be nbgrader's `2026-12-15 23:59:00.000000 UTC`, and one without a zone
is read as UTC, as nbgrader writes it. A submission handed in by its deadline (the student's extension,
if any) gets 100 % credit; within a `late:` window, that window's credit; after the last window, 0.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from qkv.course.layout import is_valid_id
from qkv.errors import QkvError

if TYPE_CHECKING:
    from qkv.course.config import Assignment

FULL_CREDIT = 100.0
EXAMPLE = "2026-12-15T23:59:00+00:00"


def parse_date(text: object, *, where: str) -> datetime:
    """A course.yaml date: ISO 8601 with a time zone; anything else is one line naming `where`."""
    if not isinstance(text, str):
        raise QkvError(f"{where}: expected an ISO 8601 date such as {EXAMPLE}, got {text!r}")
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise QkvError(f"{where}: not an ISO 8601 date: {text!r} (write it as {EXAMPLE})") from None
    if when.tzinfo is None:
        raise QkvError(
            f"{where}: {text!r} has no time zone (write it as {EXAMPLE}, or end it with Z for UTC)"
        )
    return when


def parse_handin(text: str) -> datetime | None:
    """A hand-in time as timestamp.txt or an LMS gives it (ISO 8601 or nbgrader's '... UTC'); None if not a date."""
    text = text.strip()
    if text.endswith(" UTC"):
        text = text[:-4] + "+00:00"
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def iso(when: datetime) -> str:
    """The one written form of a hand-in time: UTC, to the second (`2026-12-15T23:59:00Z`)."""
    return when.astimezone(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def check(assignment: Assignment, where: str) -> None:
    """Validate an assignment's deadline, late windows and extensions (already typed by config)."""
    deadline = (
        parse_date(assignment.deadline, where=f"{where}.deadline") if assignment.deadline else None
    )
    if (assignment.late or assignment.extensions) and deadline is None:
        key = "late" if assignment.late else "extensions"
        raise QkvError(f"{where}.{key}: set, but the assignment has no deadline")
    if deadline is None:  # and so no late windows or extensions either
        return
    before, credit = deadline, FULL_CREDIT
    for i, step in enumerate(assignment.late):
        until = parse_date(step.until, where=f"{where}.late[{i}].until")
        if until <= before:
            raise QkvError(
                f"{where}.late[{i}].until: {step.until} is not after "
                f"{'the deadline' if i == 0 else f'late[{i - 1}].until'}"
            )
        if not 0 <= step.credit < credit:
            raise QkvError(
                f"{where}.late[{i}].credit: must fall below {credit:g} and not below 0, got {step.credit:g} "
                "(credit falls strictly, window by window)"
            )
        before, credit = until, step.credit
    seen = set()
    for i, ext in enumerate(assignment.extensions):
        if not is_valid_id(ext.student):
            raise QkvError(
                f"{where}.extensions[{i}].student: {ext.student!r} is not a usable student id"
            )
        if ext.student in seen:
            raise QkvError(
                f"{where}.extensions[{i}].student: '{ext.student}' has an extension already"
            )
        seen.add(ext.student)
        if parse_date(ext.deadline, where=f"{where}.extensions[{i}].deadline") <= deadline:
            raise QkvError(
                f"{where}.extensions[{i}].deadline: {ext.deadline} is not after the deadline"
            )


def deadline_for(assignment: Assignment, student: str) -> datetime | None:
    """The student's own deadline: their extension's, else the assignment's (None: no deadline)."""
    if not assignment.deadline:
        return None
    own = next(
        (e.deadline for e in assignment.extensions if e.student == student), assignment.deadline
    )
    return parse_date(own, where="deadline")


def credit(assignment: Assignment, student: str, submitted_at: str | None) -> float:
    """The percentage of the points a hand-in at `submitted_at` earns.

    Late windows are measured from the assignment's deadline; an extension shifts every window by
    the days it grants, so a student with two extra days has the same late windows, two days later.

    Args:
        assignment: the assignment, with its deadline, late windows and extensions.
        student: the student, whose extension counts.
        submitted_at: when it was handed in (ISO 8601), or None.

    Returns:
        100 on time, without a time or without a deadline; else the late window's credit, or 0.
    """
    due = deadline_for(assignment, student)
    when = parse_handin(submitted_at) if submitted_at else None
    if due is None or when is None or when <= due:
        return FULL_CREDIT
    shift = due - parse_date(assignment.deadline, where="deadline")
    for step in assignment.late:
        if when <= parse_date(step.until, where="late.until") + shift:
            return float(step.credit)
    return 0.0


def final(total: float, credit_percent: float) -> float:
    """The points that count: total × credit / 100, to 6 decimals like every sum of points."""
    return round(total * credit_percent / FULL_CREDIT, 6)
