"""After grading: the class report (report.html), every student's feedback page, and the terminal summary.

Everything is read back from what grading wrote into DIR (results/<student>.json and run.json), so
pages can be rebuilt without regrading. The same results give byte-identical pages.
"""
from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from autograder.content import loader
from autograder.course import layout
from autograder.grading import results
from autograder.course import deadlines
from autograder.reports import heatmap
from autograder.reports.roll import Roll, adjustments_section, late_section, roster_section
from autograder.errors import QkvError
from autograder.reports.pages import (FEEDBACK_DIR, REPORT_FILE, bar, column_points, esc, feedback_href, img, num,
                              page)
from autograder.grading.outcomes import Outcome, label
from autograder.grading.results import StudentResult

# Outcomes the instructor should hear about: the submission, not the student's maths, went wrong
# (or the grader did).
PROBLEM_OUTCOMES = tuple(o.value for o in Outcome if o.is_problem)
RUN_FILE = layout.RUN_FILE
TOP_MISCONCEPTIONS = 5
TOP_PROBLEMS = 10  # in the terminal; the report lists them all
FULL = 1e-9  # a score this close to the maximum is full marks (sums of float weights)


@dataclass(frozen=True)
class ColumnStats:
    column: str
    max: float
    mean: float
    full_marks: float  # fraction of all students with every point of the column


@dataclass(frozen=True)
class Brief:
    """What the class report needs of one student's result: a few hundred bytes, so memory stays
    flat however large the class (the full results are read one at a time)."""

    student: str
    columns: tuple[str, ...]
    status: str
    total: float
    scores: dict  # column -> points
    maxes: dict  # column -> most points, for the columns the results hold
    mistakes: tuple[str, ...]  # catalogue ids named in the feedback
    troubles: tuple[tuple[str, str], ...]  # (outcome, part) of checks that did not run to the end
    submitted_at: str = ""
    credit: float = 100.0  # what the late policy grants, percent
    final: float = 0.0
    adjustments: tuple[tuple[str, float, str], ...] = ()  # (part, change, comment) made by the grader

    @classmethod
    def of(cls, r: StudentResult, assignment=None) -> "Brief":
        parts = {t.part for t in r.tests}
        troubles = dict.fromkeys((t.outcome, t.part) for t in r.tests
                                 if t.outcome in PROBLEM_OUTCOMES or t.outcome == Outcome.NOT_SUBMITTED)
        submitted = r.extra.get("submitted_at") or ""
        credit = deadlines.credit(assignment, r.student, submitted or None) if assignment else deadlines.FULL_CREDIT
        return cls(r.student, r.columns, r.status, r.total, {c: r.part_score(c) for c in r.columns},
                   {c: r.part_max(c) for c in parts}, tuple(sorted({t.mistake for t in r.tests if t.mistake})),
                   tuple(troubles), submitted, credit, deadlines.final(r.total, credit),
                   tuple((t.part, t.score, t.output) for t in r.tests if t.outcome == Outcome.ADJUSTED))

    def part_score(self, column: str) -> float:
        return self.scores.get(column, 0.0)

    def part_max(self, column: str) -> float:
        return self.maxes.get(column, 0.0)

    def has_part(self, column: str) -> bool:
        return column in self.maxes


def write_pages(course, assignment, out: Path, students: list[str]) -> None:
    """Write out/feedback/<student>.html for every student and out/report.html for the class (and the
    gradebook), from what grading wrote into out."""
    from autograder.reports import outputs  # noqa: PLC0415 - outputs builds on this module

    outputs.write(course, assignment, out, students)


def terminal_summary(course, assignment, out: Path, students: list[str], briefs: list[Brief] | None = None) -> str:
    """A plain-text overview for the terminal: parts and pass rates, misconceptions, problems.

    Args:
        briefs: the students' briefs when the caller has them (read from out otherwise).
    """
    out = Path(out)
    catalogue = loader.load(course, assignment).catalogue
    class_results = briefs if briefs is not None else load(out, students)
    stats = column_stats(assignment, class_results)
    lines = [f"{assignment.id}: {len(class_results)} students", "",
             f"{'part':<12}{'mean':>8} / {'max':<5}{'full marks':>12}"]
    for s in stats:
        lines.append(f"{s.column:<12}{_fixed(s.mean):>8} / {num(s.max):<5}{_pct(s.full_marks):>12}")
    top = misconceptions(class_results)[:TOP_MISCONCEPTIONS]
    if top:
        lines += ["", "Most common misconceptions (students):"]
        lines += [f"{len(who):>5}  {mistake_id} ({_message(catalogue, mistake_id)[0] or '?'})" for mistake_id, who in top]
    lines += _listing("Timed out or not graded", problems(class_results))
    lines += _listing("Not submitted", not_submitted(class_results))
    late = [r for r in class_results if r.credit < deadlines.FULL_CREDIT]
    if late:
        lines += ["", f"Handed in late ({len(late)}): "
                  + ", ".join(f"{_plain(r.student)} {num(r.credit)} %" for r in late[:TOP_PROBLEMS])
                  + (f" and {len(late) - TOP_PROBLEMS} more" if len(late) > TOP_PROBLEMS else "")]
    lines += ["", f"Report: {out / REPORT_FILE}   feedback pages: {out / FEEDBACK_DIR}"]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Reading what grading wrote.

def read_result(out: Path, student: str) -> StudentResult:
    """A student's full result from out/results/; a QkvError when it is missing or unreadable."""
    path = results.path_for(out, student)
    try:
        return results.read(path)
    except FileNotFoundError:
        raise QkvError(f"{path}: no result for student '{student}'") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise QkvError(f"{path}: not a readable result ({type(e).__name__}: {e})") from None


def each_result(out: Path, students: list[str]):
    """Each student's full result from out/results/, sorted by student, one at a time."""
    for student in sorted(students):
        yield read_result(out, student)


def load(out: Path, students: list[str]) -> list[Brief]:
    """Each student's Brief, sorted by student."""
    return [Brief.of(r) for r in each_result(out, students)]  # no assignment: no late policy applied


def read_run(out: Path) -> dict:
    """run.json, or {} when grading did not write one."""
    path = Path(out) / RUN_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise QkvError(f"{path}: not readable run metadata ({e})") from None
    if not isinstance(data, dict):
        raise QkvError(f"{path}: expected a JSON object")
    return data


# ---------------------------------------------------------------------------------------------
# The numbers: computed once here for both the page and the terminal.

def columns(class_results: list[Brief]) -> list[str]:
    """The gradebook columns of the class, in order (the parts, then the quiz)."""
    seen: dict[str, None] = {}
    for r in class_results:
        seen.update(dict.fromkeys(r.columns))
    return list(seen)


def column_stats(assignment, class_results: list[Brief]) -> list[ColumnStats]:
    """Per column, then a last "total" row: the maximum, the mean score and the full-marks share."""
    n = len(class_results) or 1
    stats = []
    for c in columns(class_results):
        most = max(column_points(assignment, r, c) for r in class_results)
        got = [r.part_score(c) for r in class_results]
        stats.append(ColumnStats(c, most, sum(got) / n, sum(most > 0 and g >= most - FULL for g in got) / n))
    most = sum(s.max for s in stats)
    totals = [r.total for r in class_results]
    stats.append(ColumnStats("total", most, sum(totals) / n, sum(most > 0 and t >= most - FULL for t in totals) / n))
    return stats


def misconceptions(class_results: list[Brief]) -> list[tuple[str, list[str]]]:
    """(catalogue id, students whose feedback named it), most common first."""
    who: dict[str, set[str]] = defaultdict(set)
    for r in class_results:
        for mistake in r.mistakes:
            who[mistake].add(r.student)
    return sorted(((m, sorted(s)) for m, s in who.items()), key=lambda item: (-len(item[1]), item[0]))


def problems(class_results: list[Brief]) -> list[tuple[str, str]]:
    """(student, what went wrong) for submissions that timed out, crashed the worker or were not graded."""
    found = []
    for r in class_results:
        if r.status != "graded":  # its checks all say the same thing
            found.append((r.student, r.status))
            continue
        by_outcome: dict[str, list[str]] = {}
        for outcome, part in r.troubles:
            if outcome != Outcome.NOT_SUBMITTED:  # listed apart: see not_submitted()
                by_outcome.setdefault(outcome, []).append(part)
        what = [f"{label(o)} ({', '.join(p)})" for o, p in by_outcome.items()]
        if what:
            found.append((r.student, "; ".join(what)))
    return found


def not_submitted(class_results: list[Brief]) -> list[tuple[str, str]]:
    """(student, the parts nothing was handed in for), e.g. a quiz without an answers file: apart
    from code that could not be graded, since nothing went wrong but the handing in."""
    return [(r.student, ", ".join(p for o, p in r.troubles if o == Outcome.NOT_SUBMITTED))
            for r in class_results if any(o == Outcome.NOT_SUBMITTED for o, _ in r.troubles)]


def _listing(title: str, rows: list[tuple[str, str]]) -> list[str]:
    """A titled list of (student, what) for the terminal, the first TOP_PROBLEMS of them; [] when empty."""
    if not rows:
        return []
    lines = ["", f"{title} ({len(rows)}):"]
    lines += [f"  {_plain(student)}: {_plain(what)}" for student, what in rows[:TOP_PROBLEMS]]
    if len(rows) > TOP_PROBLEMS:
        lines.append(f"  ... and {len(rows) - TOP_PROBLEMS} more (see the report)")
    return lines


def _fixed(x: float) -> str:
    return f"{x:.2f}"


def _plain(text: str) -> str:
    """Untrusted text made safe for a terminal: control characters (escape sequences) shown, not obeyed."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def _message(catalogue, mistake_id: str) -> tuple[str, str]:
    """(part, message) of a catalogued mistake; ids from an older catalogue are still shown."""
    try:
        m = catalogue.by_id(mistake_id)
    except KeyError:
        return "", "(no longer in the misconception catalogue)"
    return m.part, m.message


# ---------------------------------------------------------------------------------------------
# report.html

def render(course, assignment, class_results: list[Brief], run: dict, *, roll: Roll = Roll()) -> str:
    """The class report as one self-contained HTML document."""
    stats = column_stats(assignment, class_results)
    catalogue = loader.load(course, assignment).catalogue
    body = [
        f"<h1>Class report: {esc(assignment.title)}</h1>",
        f"<p class=\"sub\">{esc(course.name)} · assignment <code>{esc(assignment.id)}</code> · "
        f"{len(class_results)} students</p>",
        _scores(stats[-1], class_results),
        _parts(stats),
        _misconceptions(class_results, catalogue),
        _problems(class_results),
        _not_submitted(class_results),
        roster_section(roll, course.roster is not None),
        late_section(class_results),
        adjustments_section(class_results, roll),
        _students(stats, class_results),
        _run(run),
    ]
    return page(f"Class report: {assignment.title}", "\n".join(b for b in body if b))


def _link(student: str) -> str:
    return f"<a href=\"{feedback_href(student)}\">{esc(student)}</a>"


def _scores(total: ColumnStats, class_results) -> str:
    shares = [100 * r.total / total.max if total.max else 0.0 for r in class_results]
    svg = heatmap.histogram_svg(shares, title="Score distribution")
    median = statistics.median(r.total for r in class_results) if class_results else 0.0
    return ("<h2>Scores</h2>\n"
            f"<p>Mean {_fixed(total.mean)} / {num(total.max)}, median {num(median)}; "
            f"{_pct(total.full_marks)} of students have full marks.</p>\n"
            + img(heatmap.data_uri(svg), "Histogram of total scores in tenths of the maximum"))


def _parts(stats: list[ColumnStats]) -> str:
    rows = [f"<tr><td>{esc(s.column)}</td><td class=\"num\">{num(s.max)}</td>"
            f"<td class=\"num\">{_fixed(s.mean)}</td><td class=\"num\">{_pct(s.full_marks)}</td>"
            f"<td>{bar(s.full_marks)}</td></tr>" for s in stats]
    return ("<h2>Parts</h2>\n<table><tr><th>part</th><th class=\"num\">max</th><th class=\"num\">mean</th>"
            "<th class=\"num\">full marks</th><th></th></tr>\n" + "\n".join(rows) + "\n</table>")


def _misconceptions(class_results, catalogue) -> str:
    found = misconceptions(class_results)
    if not found:
        return "<h2>Misconceptions</h2>\n<p class=\"muted\">No catalogued misconception was recognised.</p>"
    rows = []
    for mistake_id, who in found:
        part, message = _message(catalogue, mistake_id)
        rows.append(f"<tr><td class=\"num\">{len(who)}</td><td><span class=\"tag\">{esc(mistake_id)}</span>"
                    f"<br>{esc(message)}</td><td>{esc(part)}</td><td>{', '.join(map(_link, who))}</td></tr>")
    return ("<h2>Misconceptions</h2>\n<p>Known mistakes the grader recognised, by the number of students "
            "whose feedback named them.</p>\n<table><tr><th class=\"num\">students</th><th>misconception</th>"
            "<th>part</th><th>who</th></tr>\n" + "\n".join(rows) + "\n</table>")


def _problems(class_results) -> str:
    found = problems(class_results)
    if not found:
        return "<h2>Timed out or not graded</h2>\n<p class=\"muted\">Every submission ran to the end.</p>"
    rows = [f"<tr><td>{_link(s)}</td><td>{esc(what)}</td></tr>" for s, what in found]
    return ("<h2>Timed out or not graded</h2>\n<table><tr><th>student</th><th>what happened</th></tr>\n"
            + "\n".join(rows) + "\n</table>")


def _not_submitted(class_results) -> str:
    found = not_submitted(class_results)
    if not found:
        return ""
    rows = [f"<tr><td>{_link(s)}</td><td>{esc(parts)}</td></tr>" for s, parts in found]
    return ("<h2>Not submitted</h2>\n<p>Parts nothing was handed in for (a quiz without an answers file): "
            "they score 0, and nothing went wrong in grading.</p>\n<table><tr><th>student</th><th>not submitted"
            "</th></tr>\n" + "\n".join(rows) + "\n</table>")


def _students(stats: list[ColumnStats], class_results) -> str:
    cols = [s.column for s in stats[:-1]]
    head = "".join(f"<th class=\"num\">{esc(c)}</th>" for c in cols)
    rows = []
    for r in class_results:
        cells = "".join(f"<td class=\"num\">{num(r.part_score(c))}</td>" for c in cols)
        status = "" if r.status == "graded" else esc(r.status)
        rows.append(f"<tr><td>{_link(r.student)}</td>{cells}<td class=\"num\">{num(r.total)}</td>"
                    f"<td class=\"num\">{num(r.credit)} %</td><td class=\"num\">{num(r.final)}</td>"
                    f"<td>{status}</td></tr>")
    return (f"<h2>Students</h2>\n<table><tr><th>student</th>{head}<th class=\"num\">total</th>"
            "<th class=\"num\">credit</th><th class=\"num\">final</th><th>status</th>"
            "</tr>\n" + "\n".join(rows) + "\n</table>")


RUN_LABELS = {"isolation": "isolation", "versions": "versions", "course_seed": "course seed",
              "assignment": "assignment", "duration_s": "duration", "submissions": "submissions",
              "jobs": "parallel jobs", "skipped": "skipped",
              "weak_sandbox_accepted": "weaker sandbox accepted, missing", "regraded": "graded because",
              "grader_errors": "grader errors",
              "missing": "on the roster, no submission", "not_on_roster": "graded, not on the roster"}


def _run_value(key: str, value) -> str:
    if key == "duration_s" and isinstance(value, (int, float)):
        return f"{value:.1f} s"
    if key == "versions" and isinstance(value, dict):
        return ", ".join(f"{esc(k)} {esc(v)}" for k, v in sorted(value.items()))
    if key == "weak_sandbox_accepted" and isinstance(value, list):
        return esc(", ".join(map(str, value))) if value else "nothing (every layer present)"
    if isinstance(value, list):  # skipped files, grader errors, ...: one per line, or "none"
        return "<br>".join(esc(line) for line in value) if value else "none"
    return esc(value if isinstance(value, (str, int, float)) else json.dumps(value, sort_keys=True))


def _run(run: dict) -> str:
    if not run:
        return f"<h2>The run</h2>\n<p class=\"muted\">No {RUN_FILE} was written for this run.</p>"
    keys = [k for k in RUN_LABELS if k in run] + sorted(k for k in run if k not in RUN_LABELS)
    items = "\n".join(f"<dt>{esc(RUN_LABELS.get(k, k))}</dt><dd>{_run_value(k, run[k])}</dd>" for k in keys)
    return f"<h2>The run</h2>\n<dl>\n{items}\n</dl>"
