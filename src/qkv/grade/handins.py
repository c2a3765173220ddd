"""Several hand-ins of one student: which to grade, and which one counts.

A student folder whose code sits in sub-folders (`SUBMISSIONS/<id>/<hand-in>/`, each with its
timestamp.txt) handed in several times. `course.resubmissions` decides: `last` grades and counts the
latest hand-in; `best` grades every one and counts the one with the most points after late credit
(the later one on a tie). Each hand-in's result is kept in handins/<student>/<hand-in>.json; the one
that counts is copied to results/<student>.json with the list of hand-ins beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from itertools import groupby
from pathlib import Path

from qkv.course import deadlines
from qkv.errors import QkvError
from qkv.intake.submissions import Submission
from qkv.results import records as results


def _by_student(subs: Iterable[Submission]):
    return groupby(
        subs, key=lambda s: s.student
    )  # discover sorts by student, then hand-in time and name


def to_grade(subs, policy: str):
    """The hand-ins that need a result, one at a time, from hand-ins in discover's order: all of them
    for `best`, each student's latest for `last`."""
    if policy == "best":
        yield from subs
        return
    for _, group in _by_student(subs):
        *_, last = group
        yield last


def select(assignment, out: Path, graded: Iterable[Submission], policy: str) -> None:
    """Write results/<student>.json for every student with several hand-ins: the one that counts.

    Args:
        assignment: the assignment.
        out: the output folder holding every hand-in's result.
        graded: the run's hand-ins, in the plan's order.
        policy: course.yaml's `resubmissions` (which hand-in counts).

    Raises:
        QkvError: a hand-in's result is unreadable.
    """
    for student, group in _by_student(graded):
        group = list(group)
        if not group[0].handin:
            continue
        scored = []
        for sub in group:
            path = results.path_for(out, student, sub.handin)
            try:
                result = results.read(path)
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise QkvError(
                    f"{path}: not a readable result ({type(e).__name__}); rerun to grade it again"
                ) from None
            credit = deadlines.credit(assignment, student, sub.submitted_at)
            scored.append((result, sub, credit, deadlines.final(result.total, credit)))
        chosen = max(scored, key=lambda item: item[3]) if policy == "best" else scored[-1]
        if policy == "best":  # the later one on a tie
            chosen = [item for item in scored if item[3] == chosen[3]][-1]
        listed = [
            {
                "handin": sub.handin,
                "submitted_at": sub.submitted_at,
                "total": r.total,
                "credit": credit,
                "final": final,
            }
            for r, sub, credit, final in scored
        ]
        result = chosen[0]
        extra = {**result.extra, "handins": listed, "resubmissions": policy}
        results.write(dataclasses.replace(result, extra=extra), out, handin="")
