"""After grading: the class report (report.html), every student's feedback page, and the terminal summary.

Everything is read back from what grading wrote into DIR (results/<student>.json and run.json), so
pages can be rebuilt without regrading. The same results give byte-identical pages.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np

from qkv.content import loader
from qkv.course import layout
from qkv.errors import QkvError
from qkv.reports import heatmap
from qkv.reports.class_tally import Brief, ColumnStats, Tally
from qkv.reports.pages import (
    FEEDBACK_DIR,
    PAGE_END,
    REPORT_FILE,
    bar,
    esc,
    feedback_href,
    img,
    listed,
    num,
    page_start,
    table,
)
from qkv.reports.roll import Roll, adjustments_section, late_section, roster_section
from qkv.results import records as results
from qkv.results.records import StudentResult

RUN_FILE = layout.RUN_FILE
TOP_MISCONCEPTIONS = 5
TOP_PROBLEMS = 10  # in the terminal; the report lists them all


def terminal_summary(
    course, assignment, out: Path, students: list[str], tally: Tally | None = None
) -> str:
    """A plain-text overview for the terminal: parts and pass rates, misconceptions, problems.

    Args:
        tally: the class's numbers when the caller has them (read from out otherwise).
    """
    out = Path(out)
    catalogue = loader.load(course, assignment).catalogue
    if tally is None:
        tally = Tally.of(assignment, load(out, students))
    stats = tally.column_stats()
    width = max([12, *(len(s.column) + 2 for s in stats)])
    lines = [
        f"{assignment.id}: {tally.n} students",
        "",
        f"{'part':<{width}}{'mean':>8} / {'max':<5}{'full marks':>12}",
    ]
    for s in stats:
        lines.append(
            f"{s.column:<{width}}{_fixed(s.mean):>8} / {num(s.max):<5}{_pct(s.full_marks):>12}"
        )
    top = tally.misconceptions()[:TOP_MISCONCEPTIONS]
    if top:
        lines += ["", "Most common misconceptions (students):"]
        lines += [
            f"{len(who):>5}  {mistake_id} ({_message(catalogue, mistake_id)[0] or '?'})"
            for mistake_id, who in top
        ]
    lines += _listing("Timed out or not graded", tally.problems)
    lines += _listing("Not submitted", tally.not_submitted)
    late = tally.late
    if late:
        lines += [
            "",
            f"Handed in late ({len(late)}): "
            + ", ".join(
                f"{_plain(student)} {num(credit)} %"
                for student, _, _, credit, _ in late[:TOP_PROBLEMS]
            )
            + (f" and {len(late) - TOP_PROBLEMS} more" if len(late) > TOP_PROBLEMS else ""),
        ]
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


def load(out: Path, students: list[str]):
    """Each student's Brief, sorted by student, one at a time (no late policy applied)."""
    return (Brief.of(r) for r in each_result(out, students))


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


def write(
    f, course, assignment, tally: Tally, run: dict, *, roll: Roll = Roll(), items: str = ""
) -> None:
    """The class report, as one self-contained HTML document, written a piece at a time.

    However many students its tables list, it is never held whole.

    Args:
        f: the text file to write into.
        course: the course.
        assignment: the assignment.
        tally: the class's numbers.
        run: run.json's content.
        roll: what the roster and the overrides say of the class.
        items: the item analysis section, as HTML, or "" for none.
    """
    stats = tally.column_stats()
    catalogue = loader.load(course, assignment).catalogue
    sections = [
        (f"<h1>Class report: {esc(assignment.title)}</h1>",),
        (
            f'<p class="sub">{esc(course.name)} · assignment <code>{esc(assignment.id)}</code> · '
            f"{tally.n} students</p>",
        ),
        (_scores(stats[-1], tally),),
        (_parts(stats),),
        _misconceptions(tally, catalogue),
        (items,) if items else (),
        _problems(tally),
        _not_submitted(tally),
        roster_section(roll, course.roster is not None),
        late_section(tally.late),
        adjustments_section(tally.adjustments, roll),
        _students(stats, tally),
        (_run(run),),
    ]
    f.write(page_start(f"Class report: {assignment.title}"))
    wrote = False
    gap = ""  # none before the first section, a line between each two
    for pieces in sections:  # a section without pieces is left out
        for piece in pieces:
            f.write(gap + piece if gap else piece)
            gap = ""
            wrote = True
        if wrote:
            gap, wrote = "\n", False
    f.write(PAGE_END)


def _link(student: str) -> str:
    return f'<a href="{feedback_href(student)}">{esc(student)}</a>'


def _scores(total: ColumnStats, tally: Tally) -> str:
    totals = tally.totals
    shares = 100 * np.frombuffer(totals) / total.max if total.max else np.zeros(len(totals))
    svg = heatmap.histogram_svg(shares, title="Score distribution")
    median = statistics.median(totals) if totals else 0.0
    return (
        "<h2>Scores</h2>\n"
        f"<p>Mean {_fixed(total.mean)} / {num(total.max)}, median {num(median)}; "
        f"{_pct(total.full_marks)} of students have full marks.</p>\n"
        + img(heatmap.data_uri(svg), "Histogram of total scores in tenths of the maximum")
    )


def _parts(stats: list[ColumnStats]) -> str:
    rows = [
        f'<tr><td>{esc(s.column)}</td><td class="num">{num(s.max)}</td>'
        f'<td class="num">{_fixed(s.mean)}</td><td class="num">{_pct(s.full_marks)}</td>'
        f"<td>{bar(s.full_marks)}</td></tr>"
        for s in stats
    ]
    return (
        '<h2>Parts</h2>\n<div class="scroll"><table><tr><th>part</th><th class="num">max</th>'
        '<th class="num">mean</th><th class="num">full marks</th><th></th></tr>\n'
        + "\n".join(rows)
        + "\n</table></div>"
    )


def _misconceptions(tally: Tally, catalogue):
    found = tally.misconceptions()
    if not found:
        yield '<h2>Misconceptions</h2>\n<p class="muted">No catalogued misconception was recognised.</p>'
        return

    def row(mistake_id, who):
        part, message = _message(catalogue, mistake_id)
        yield (
            f'<tr><td class="num">{len(who)}</td><td><span class="tag">{esc(mistake_id)}</span>'
            f'<br>{esc(message)}</td><td class="ident">{esc(part)}</td><td>'
        )
        yield from listed(map(_link, who))
        yield "</td></tr>"

    yield from table(
        "<h2>Misconceptions</h2>\n<p>Known mistakes the grader recognised, by the number of students "
        'whose feedback named them.</p>\n<table><tr><th class="num">students</th><th>misconception</th>'
        "<th>part</th><th>who</th></tr>\n",
        (row(m, who) for m, who in found),
    )


def _problems(tally: Tally):
    if not tally.problems:
        yield '<h2>Timed out or not graded</h2>\n<p class="muted">Every submission ran to the end.</p>'
        return
    yield from table(
        "<h2>Timed out or not graded</h2>\n<table><tr><th>student</th><th>what happened</th></tr>\n",
        (f"<tr><td>{_link(s)}</td><td>{esc(what)}</td></tr>" for s, what in tally.problems),
    )


def _not_submitted(tally: Tally):
    if not tally.not_submitted:
        return
    yield from table(
        "<h2>Not submitted</h2>\n<p>Parts nothing was handed in for (a quiz without an answers file): "
        "they score 0, and nothing went wrong in grading.</p>\n<table><tr><th>student</th><th>not "
        "submitted</th></tr>\n",
        (f"<tr><td>{_link(s)}</td><td>{esc(parts)}</td></tr>" for s, parts in tally.not_submitted),
    )


def _students(stats: list[ColumnStats], tally: Tally):
    cols = [s.column for s in stats[:-1]]
    head = "".join(f'<th class="num">{esc(c)}</th>' for c in cols)

    def row(r):
        cells = "".join(f'<td class="num">{num(r.scores.get(c, 0.0))}</td>' for c in cols)
        status = "" if r.status == "graded" else esc(r.status)
        return (
            f'<tr><td>{_link(r.student)}</td>{cells}<td class="num">{num(r.total)}</td>'
            f'<td class="num">{num(r.credit)} %</td><td class="num">{num(r.final)}</td><td>{status}</td></tr>'
        )

    yield from table(
        f'<h2>Students</h2>\n<table><tr><th>student</th>{head}<th class="num">total</th>'
        '<th class="num">credit</th><th class="num">final</th><th>status</th></tr>\n',
        map(row, tally.rows()),
    )


RUN_LABELS = {
    "isolation": "isolation",
    "versions": "versions",
    "course_seed": "course seed",
    "assignment": "assignment",
    "duration_s": "duration",
    "submissions": "submissions",
    "jobs": "parallel jobs",
    "skipped": "skipped",
    "weak_sandbox_accepted": "weaker sandbox accepted, missing",
    "regraded": "graded because",
    "grader_errors": "grader errors",
    "missing": "on the roster, no submission",
    "not_on_roster": "graded, not on the roster",
}


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
        return f'<h2>The run</h2>\n<p class="muted">No {RUN_FILE} was written for this run.</p>'
    keys = [k for k in RUN_LABELS if k in run] + sorted(k for k in run if k not in RUN_LABELS)
    items = "\n".join(
        f"<dt>{esc(RUN_LABELS.get(k, k))}</dt><dd>{_run_value(k, run[k])}</dd>" for k in keys
    )
    return f"<h2>The run</h2>\n<dl>\n{items}\n</dl>"
