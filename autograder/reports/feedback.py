"""The page a student opens after grading: points per part, what each check found, and their
attention matrix on "two plus three" beside the reference's.

Built from a StudentResult alone (plus the public fixture): nothing about hidden cases appears
beyond the teaching messages the grader already wrote into the results.
"""
from __future__ import annotations

import numpy as np

from autograder.reports import heatmap
from autograder.grading.fixture import Fixture
from autograder.reports.pages import bar, column_points, esc, img, num, outcome_label, page
from autograder.grading.results import StudentResult

MAX_MATRIX_SIDE = 12  # a bigger "attention matrix" is not worth drawing; it is described instead

MAP_CAPTION = ("Rows are the token that attends (its Query); columns are the token it attends to (its "
               "Key). Each row is one softmax, so each row should sum to 1 (Σ on the right).")


def render(course, assignment, result: StudentResult, fx: Fixture) -> str:
    """The student's feedback page as one self-contained HTML document."""
    parts = [c for c in result.columns if c != "quiz"]
    body = [
        f"<h1>Feedback for {esc(result.student)}</h1>",
        f"<p class=\"sub\">{esc(course.name)} · {esc(assignment.title)}</p>",
        _status(result),
        _summary(assignment, result),
        _attention(course, result, fx),
        "<h2>Checks, part by part</h2>",
        *(_part(assignment, result, column) for column in parts),
        _quiz(assignment, result),
        _program_output(result),
    ]
    return page(f"Feedback for {result.student}: {assignment.title}", "\n".join(b for b in body if b))


def _max_total(assignment, result: StudentResult) -> float:
    return sum(column_points(assignment, result, c) for c in result.columns)


def _status(result: StudentResult) -> str:
    if result.status == "graded":
        return ""
    why = esc(result.status.rstrip("."))
    return (f"<p class=\"banner\"><strong>Your submission could not be graded:</strong> {why}."
            " Fix this first; the parts below explain what it cost.</p>")


def _summary(assignment, result: StudentResult) -> str:
    rows = []
    for column in result.columns:
        got, most = result.part_score(column), column_points(assignment, result, column)
        share = got / most if most else 0.0
        rows.append(f"<tr><td>{esc(column)}</td><td class=\"num\">{num(got)} / {num(most)}</td>"
                    f"<td>{bar(share)}</td></tr>")
    return (f"<p class=\"total\">Total: {num(result.total)} / {num(_max_total(assignment, result))}</p>\n"
            "<table class=\"summary\"><tr><th>part</th><th class=\"num\">points</th><th></th></tr>\n"
            + "\n".join(rows) + "\n</table>")


def _student_matrix(value) -> tuple[np.ndarray | None, str]:
    """The student's matrix if it can be drawn, else why not (in words for the student)."""
    if value is None:
        return None, ("Your <code>attend</code> did not return an attention matrix for this example, so there "
                      "is nothing to draw yet; the <code>attend</code> checks below say why.")
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        return None, "Your <code>attend</code> returned something that is not a matrix of numbers."
    if a.ndim != 2 or not 0 < a.shape[0] <= MAX_MATRIX_SIDE or not 0 < a.shape[1] <= MAX_MATRIX_SIDE:
        return None, (f"Your <code>attend</code> returned an attention matrix of shape {esc(a.shape)}; "
                      "with three tokens it should be 3 × 3.")
    return a, ""


def _attention(course, result: StudentResult, fx: Fixture) -> str:
    tokens = list(fx.tokens)
    reference = heatmap.attention_png(fx.A, tokens, tokens, title="Reference")
    ref_fig = ("<figure>" + img(heatmap.data_uri(reference), "The reference attention matrix for "
                                "'two plus three'") + "<figcaption>The reference.</figcaption></figure>")
    mine, problem = _student_matrix(result.fixture_attention)
    if mine is None:
        yours = f"<p class=\"missing\">{problem}</p>"
    else:
        same_shape = mine.shape == fx.A.shape
        off = ~np.isclose(mine, fx.A, rtol=course.tolerance.rtol, atol=course.tolerance.atol) if same_shape else None
        label = lambda n, i: tokens[i] if n == len(tokens) else f"#{i}"  # noqa: E731
        png = heatmap.attention_png(mine, [label(mine.shape[0], i) for i in range(mine.shape[0])],
                                    [label(mine.shape[1], j) for j in range(mine.shape[1])],
                                    title="Yours", outline=off)
        if not same_shape:
            note = f"Its shape is {esc(mine.shape)}; with three tokens it should be 3 × 3."
        elif off.any():
            note = f"{int(off.sum())} of {off.size} cells (framed in red) differ from the reference."
        else:
            note = "It matches the reference."
        yours = ("<figure>" + img(heatmap.data_uri(png), "Your attention matrix for 'two plus three'")
                 + f"<figcaption>What your <code>attend</code> returned. {note}</figcaption></figure>")
    return ("<h2>Who attends to whom in “two plus three”</h2>\n"
            f"<p>{MAP_CAPTION}</p>\n<div class=\"maps\">{yours}{ref_fig}</div>")


def _checks_table(tests, first: str = "check") -> str:
    shown = [t for t in tests if t.visibility != "hidden"]  # Gradescope's meaning: never shown to the student
    hidden = len(tests) - len(shown)
    note = (f"\n<p class=\"muted\">{hidden} more check{'s are' if hidden != 1 else ' is'} hidden by your "
            "course.</p>") if hidden else ""
    if not shown:
        return note.lstrip("\n")
    rows = []
    for t in shown:
        said = esc(t.output) if t.output else ("" if t.outcome == "passed" else esc("(no message)"))
        if t.mistake:
            said += f" <span class=\"tag\" title=\"known misconception\">{esc(t.mistake)}</span>"
        rows.append(f"<tr><td>{esc(t.name)}</td><td>{outcome_label(t.outcome)}</td>"
                    f"<td class=\"num\">{num(t.score)} / {num(t.max_score)}</td><td>{said}</td></tr>")
    return ("<table class=\"checks\"><colgroup><col class=\"name\"><col class=\"outcome\">"
            "<col class=\"points\"><col></colgroup>\n"
            f"<tr><th>{first}</th><th>outcome</th><th class=\"num\">points</th><th>feedback</th></tr>\n"
            + "\n".join(rows) + "\n</table>" + note)


def _part(assignment, result: StudentResult, column: str) -> str:
    tests = [t for t in result.tests if t.part == column]
    function = next((p.function for p in assignment.parts if p.id == column), column)
    head = (f"<h3><code>{esc(function)}</code> · {num(result.part_score(column))} / "
            f"{num(column_points(assignment, result, column))}</h3>")
    if not tests:
        return head + "\n<p class=\"muted\">No checks ran for this part.</p>"
    return head + "\n" + _checks_table(tests)


def _quiz(assignment, result: StudentResult) -> str:
    tests = [t for t in result.tests if t.part == "quiz"]
    if not tests and "quiz" not in result.columns:
        return ""
    head = (f"<h2>Quiz · {num(result.part_score('quiz'))} / {num(column_points(assignment, result, 'quiz'))}</h2>")
    if not tests:
        return head + "\n<p class=\"muted\">No quiz answers were graded.</p>"
    return head + "\n" + _checks_table(tests, "question")


def _program_output(result: StudentResult) -> str:
    if not result.output:
        return ""
    return ("<h2>What your code printed</h2>\n<details><summary>Show the output of your submission"
            f"</summary>\n<pre>{esc(result.output)}</pre>\n</details>")
