"""The class report's sections on who handed in what and when: the roster, late work and the
grader's manual adjustments (the rest of report.html is in class_report)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from qkv.reports.pages import esc, feedback_href, listed, num, table


@dataclass(frozen=True)
class Roll:
    """What the roster and the overrides file say about the class as graded."""

    missing: tuple[str, ...] = ()  # on the roster, no submission
    unexpected: tuple[str, ...] = ()  # graded, not on the roster
    unused_overrides: tuple = ()  # overrides.Override of students without a result


def _link(student: str) -> str:
    return f'<a href="{feedback_href(student)}">{esc(student)}</a>'


def roster_section(roll: Roll, has_roster: bool):
    """The roster's section, in pieces (none without a roster)."""
    if not has_roster:
        return
    yield "<h2>Roster</h2>"
    if roll.missing:
        yield f"\n<p><strong>No submission ({len(roll.missing)}):</strong> "
        yield from listed(map(esc, roll.missing))
        yield " (a <code>missing</code> row of zeros each).</p>"
    if roll.unexpected:
        yield f"\n<p><strong>Not on the roster ({len(roll.unexpected)}):</strong> "
        yield from listed(map(_link, roll.unexpected))
        yield " (graded; check the folder names).</p>"
    if not roll.missing and not roll.unexpected:
        yield '\n<p class="muted">Every student on the roster handed in, and nobody else.</p>'


def late_section(late):
    """The late work's section, in pieces (none when nobody was late). `late`: (student, handed in,
    total, credit, final) of each student handed in late."""
    if not late:
        return
    rows = (
        f'<tr><td>{_link(student)}</td><td>{esc(at)}</td><td class="num">{num(total)}</td>'
        f'<td class="num">{num(credit)} %</td><td class="num">{num(final)}</td></tr>'
        for student, at, total, credit, final in late
    )
    yield from table(
        f"<h2>Late work</h2>\n<p>{len(late)} handed in after their deadline.</p>\n<table><tr><th>student</th>"
        '<th>handed in</th><th class="num">total</th><th class="num">credit</th>'
        '<th class="num">final</th></tr>\n',
        rows,
    )


def adjustments_section(adjustments, roll: Roll):
    """The manual adjustments' section, in pieces (none without any). `adjustments`: (student, part,
    change, comment) of each manual adjustment applied."""
    if not adjustments and not roll.unused_overrides:
        return
    rows = [
        (
            f'<tr><td>{_link(student)}</td><td>{esc(part)}</td><td class="num">{"+" if change >= 0 else ""}'
            f"{num(change)}</td><td>{esc(comment)}</td></tr>"
            for student, part, change, comment in adjustments
        ),
        (
            f'<tr><td>{esc(o.student)}</td><td>{esc(o.part)}</td><td class="num">not applied</td>'
            f"<td>{esc(o.comment)} (no submission from this student)</td></tr>"
            for o in roll.unused_overrides
        ),
    ]
    yield from table(
        "<h2>Manual adjustments</h2>\n<p>From the overrides file, applied after grading.</p>\n<table><tr>"
        '<th>student</th><th>part</th><th class="num">change</th><th>comment</th></tr>\n',
        itertools.chain(*rows),
    )
