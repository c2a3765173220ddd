"""The class report's sections on who handed in what and when: the roster, late work and the
grader's manual adjustments (the rest of report.html is in class_report)."""
from __future__ import annotations

from dataclasses import dataclass

from autograder.reports.pages import esc, feedback_href, num


@dataclass(frozen=True)
class Roll:
    """What the roster and the overrides file say about the class as graded."""

    missing: tuple[str, ...] = ()  # on the roster, no submission
    unexpected: tuple[str, ...] = ()  # graded, not on the roster
    unused_overrides: tuple = ()  # overrides.Override of students without a result


def _link(student: str) -> str:
    return f"<a href=\"{feedback_href(student)}\">{esc(student)}</a>"


def roster_section(roll: Roll, has_roster: bool) -> str:
    if not has_roster:
        return ""
    lines = []
    if roll.missing:
        lines.append(f"<p><strong>No submission ({len(roll.missing)}):</strong> "
                     f"{', '.join(map(esc, roll.missing))} (a <code>missing</code> row of zeros each).</p>")
    if roll.unexpected:
        lines.append(f"<p><strong>Not on the roster ({len(roll.unexpected)}):</strong> "
                     f"{', '.join(map(_link, roll.unexpected))} (graded; check the folder names).</p>")
    if not lines:
        lines.append("<p class=\"muted\">Every student on the roster handed in, and nobody else.</p>")
    return "<h2>Roster</h2>\n" + "\n".join(lines)


def late_section(briefs) -> str:
    late = [b for b in briefs if b.credit < 100]
    if not late:
        return ""
    rows = [f"<tr><td>{_link(b.student)}</td><td>{esc(b.submitted_at)}</td><td class=\"num\">{num(b.total)}</td>"
            f"<td class=\"num\">{num(b.credit)} %</td><td class=\"num\">{num(b.final)}</td></tr>" for b in late]
    return (f"<h2>Late work</h2>\n<p>{len(late)} handed in after their deadline.</p>\n<table><tr><th>student</th>"
            "<th>handed in</th><th class=\"num\">total</th><th class=\"num\">credit</th><th class=\"num\">final</th>"
            "</tr>\n" + "\n".join(rows) + "\n</table>")


def adjustments_section(briefs, roll: Roll) -> str:
    rows = [f"<tr><td>{_link(b.student)}</td><td>{esc(part)}</td><td class=\"num\">{'+' if change >= 0 else ''}"
            f"{num(change)}</td><td>{esc(comment)}</td></tr>" for b in briefs for part, change, comment in b.adjustments]
    rows += [f"<tr><td>{esc(o.student)}</td><td>{esc(o.part)}</td><td class=\"num\">not applied</td>"
             f"<td>{esc(o.comment)} (no submission from this student)</td></tr>" for o in roll.unused_overrides]
    if not rows:
        return ""
    return ("<h2>Manual adjustments</h2>\n<p>From the overrides file, applied after grading.</p>\n<table><tr>"
            "<th>student</th><th>part</th><th class=\"num\">change</th><th>comment</th></tr>\n"
            + "\n".join(rows) + "\n</table>")
