"""The page a student opens after grading: points per part, what each check found, and the
figures the assignment draws (from what the suites recorded, beside the worked example).

Built from a StudentResult alone (plus the public worked example): nothing about hidden cases
appears beyond the teaching messages the grader already wrote into the results.
"""

from __future__ import annotations

import dataclasses
import math

from qkv.content.figures import Curve, Note, Section
from qkv.course import deadlines
from qkv.reports import heatmap
from qkv.reports.pages import bar, column_points, esc, img, num, outcome_label, page
from qkv.results.outcomes import Outcome
from qkv.results.records import StudentResult


def render(course, assignment, result: StudentResult, section: Section | None) -> str:
    """The student's feedback page as one self-contained HTML document.

    Args:
        course: the course.
        assignment: the assignment.
        result: the student's result.
        section: what the content draws from the student's values, or None.

    Returns:
        The page.
    """
    parts = [c for c in result.columns if c != "quiz"]
    said = {result.status.rstrip(".")} if result.status != "graded" else set()
    body = [
        f"<h1>Feedback for {esc(result.student)}</h1>",
        f'<p class="sub">{esc(course.name)} · {esc(assignment.title)}</p>',
        _status(result),
        _summary(assignment, result),
        _handed_in(assignment, result),
        _adjustments(result),
        _section(section),
        "<h2>Checks, part by part</h2>",
        *(_part(assignment, result, column, said) for column in parts),
        _quiz(assignment, result, said),
        _program_output(result),
    ]
    return page(
        f"Feedback for {result.student}: {assignment.title}", "\n".join(b for b in body if b)
    )


def _max_total(assignment, result: StudentResult) -> float:
    return sum(column_points(assignment, result, c) for c in result.columns)


def _status(result: StudentResult) -> str:
    if result.status == "graded":
        return ""
    why = esc(result.status.rstrip("."))
    return (
        f'<p class="banner"><strong>Your submission could not be graded:</strong> {why}.'
        " Fix this first; the parts below explain what it cost.</p>"
    )


def _summary(assignment, result: StudentResult) -> str:
    rows = []
    for column in result.columns:
        got, most = result.part_score(column), column_points(assignment, result, column)
        share = got / most if most else 0.0
        rows.append(
            f'<tr><td>{esc(column)}</td><td class="num">{num(got)} / {num(most)}</td>'
            f"<td>{bar(share)}</td></tr>"
        )
    return (
        f'<p class="total">Total: {num(result.total)} / {num(_max_total(assignment, result))}</p>\n'
        '<div class="scroll"><table class="summary"><tr><th>part</th><th class="num">points</th>'
        "<th></th></tr>\n" + "\n".join(rows) + "\n</table></div>"
    )


def _handed_in(assignment, result: StudentResult) -> str:
    """When the work was handed in, and what the late policy made of it (nothing without a time)."""
    submitted = result.extra.get("submitted_at")
    if not submitted:
        return ""
    credit = deadlines.credit(assignment, result.student, submitted)
    due = deadlines.deadline_for(assignment, result.student)
    when = f"Handed in {esc(submitted)}"
    if due is None or credit == deadlines.FULL_CREDIT:
        return f"<p>{when}{', on time' if due else ''}.</p>"
    final = deadlines.final(result.total, credit)
    return (
        f'<p class="banner">{when}, after your deadline ({esc(deadlines.iso(due))}): the late policy grants '
        f"{num(credit)} % of the points, so {num(final)} count of your {num(result.total)}.</p>"
    )


def _adjustments(result: StudentResult) -> str:
    made = [t for t in result.tests if t.outcome == Outcome.ADJUSTED]
    if not made:
        return ""
    rows = [
        f'<tr><td>{esc(t.part)}</td><td class="num">{"+" if t.score >= 0 else ""}{num(t.score)}</td>'
        f"<td>{esc(t.output) or '(no comment)'}</td></tr>"
        for t in made
    ]
    return (
        '<h2>Adjusted by your grader</h2>\n<div class="scroll"><table><tr><th>part</th>'
        '<th class="num">points</th><th>comment</th></tr>\n' + "\n".join(rows) + "\n</table></div>"
    )


def _figure(item) -> str:
    if isinstance(item, Note):
        return f'<p class="missing">{esc(item.text)}</p>'
    if isinstance(item, Curve):
        svg = heatmap.curve_svg(
            item.values,
            title=item.title,
            xlabel=item.xlabel,
            ylabel=item.ylabel,
            log=item.log,
            every=item.every,
        )
    else:
        svg = heatmap.matrix_svg(
            item.values,
            item.rows,
            item.cols,
            title=item.title,
            outline=item.outline,
            row_sums=item.row_sums,
            xlabel=item.xlabel,
            ylabel=item.ylabel,
        )
    caption = f"<figcaption>{esc(item.caption)}</figcaption>" if item.caption else ""
    return f"<figure>{img(heatmap.data_uri(svg), item.alt or item.title)}{caption}</figure>"


def _section(section: Section | None) -> str:
    """The assignment's own figures (its content decides what they are), drawn side by side."""
    if section is None:
        return ""
    figures = "".join(_figure(item) for item in section.items)
    intro = f"<p>{esc(section.intro)}</p>\n" if section.intro else ""
    return f'<h2>{esc(section.heading)}</h2>\n{intro}<div class="maps">{figures}</div>'


SAID_ABOVE = "As said above."


def _once(tests, said: set) -> list:
    """The tests with any message already said on the page (by the banner or a row above) cut to
    SAID_ABOVE: one syntax error reaches every check, and it is said once."""
    out = []
    for t in tests:
        text = t.output.rstrip(".") if t.output else ""
        if text and t.outcome != Outcome.PASSED and text in said:
            t = dataclasses.replace(t, output=SAID_ABOVE)
        elif text:
            said.add(text)
        out.append(t)
    return out


def _checks_table(tests, first: str = "check", said: set | None = None) -> str:
    tests = [
        t for t in tests if t.outcome != Outcome.ADJUSTED
    ]  # shown on their own, with the grader's comment
    shown = [
        t for t in tests if t.visibility != "hidden"
    ]  # Gradescope's meaning: never shown to the student
    shown = _once(shown, set() if said is None else said)
    hidden = len(tests) - len(shown)
    note = (
        (
            f'\n<p class="muted">{hidden} more check{"s are" if hidden != 1 else " is"} hidden by your '
            "course.</p>"
        )
        if hidden
        else ""
    )
    if not shown:
        return note.lstrip("\n")
    return (
        '<table class="checks"><colgroup><col class="name"><col class="outcome">'
        '<col class="points"><col></colgroup>\n'
        f'<tr><th>{first}</th><th>outcome</th><th class="num">points</th><th>feedback</th></tr>\n'
        + "\n".join(map(_check_row, shown))
        + "\n</table>"
        + note
    )


_ROWS: dict = {}  # a check (and the signs of its points) -> its row in a checks table
ROWS_KEPT = 256  # the checks most students share (passed ones, common mistakes, blank answers) come back soon


def _check_row(t) -> str:
    """A check's row; most rows are the same for many students, so each distinct one is written once."""
    key = (
        t,
        math.copysign(1.0, t.score),
        math.copysign(1.0, t.max_score),
    )  # -0.0 == 0.0 but shows as -0
    row = _ROWS.get(key)
    if row is None:
        said = esc(t.output) if t.output else ("" if t.outcome == "passed" else esc("(no message)"))
        if t.mistake:
            said += f' <span class="tag" title="known misconception">{esc(t.mistake)}</span>'
        row = (
            f"<tr><td>{esc(t.name)}</td><td>{outcome_label(t.outcome)}</td>"
            f'<td class="num">{num(t.score)} / {num(t.max_score)}</td><td>{said}</td></tr>'
        )
        if len(_ROWS) >= ROWS_KEPT:
            _ROWS.clear()
        _ROWS[key] = row
    return row


def _part(assignment, result: StudentResult, column: str, said: set) -> str:
    tests = [t for t in result.tests if t.part == column]
    function = next((p.function for p in assignment.parts if p.id == column), column)
    head = (
        f"<h3><code>{esc(function)}</code> · {num(result.part_score(column))} / "
        f"{num(column_points(assignment, result, column))}</h3>"
    )
    if not tests:
        return head + '\n<p class="muted">No checks ran for this part.</p>'
    return head + "\n" + _checks_table(tests, said=said)


def _quiz(assignment, result: StudentResult, said: set) -> str:
    tests = [t for t in result.tests if t.part == "quiz"]
    if not tests and "quiz" not in result.columns:
        return ""
    head = f"<h2>Quiz · {num(result.part_score('quiz'))} / {num(column_points(assignment, result, 'quiz'))}</h2>"
    if not tests:
        return head + '\n<p class="muted">No quiz answers were graded.</p>'
    return head + "\n" + _checks_table(tests, "question", said)


def _program_output(result: StudentResult) -> str:
    if not result.output:
        return ""
    return (
        "<h2>What your code printed</h2>\n<details><summary>Show the output of your submission"
        f"</summary>\n<pre>{esc(result.output)}</pre>\n</details>"
    )
