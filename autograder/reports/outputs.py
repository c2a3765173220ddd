"""Everything a grading run writes from its results, in one pass over them: the gradebook, each
student's feedback page, and the class report (which needs only a brief per student, so memory
stays flat however large the class).

The results hold what the checks gave; here the manual adjustments (overrides) are applied and the
late policy is read, so changing either needs no regrade, only this pass.
"""
from __future__ import annotations

from pathlib import Path

from autograder.content import loader
from autograder.course import layout
from autograder.grading import gradebook, overrides as overrides_mod
from autograder.grading.results import atomic_write
from autograder.reports import class_report, feedback


def write(course, assignment, out: Path, students: list[str], *, pages: bool = True,
          roster=None) -> list[class_report.Brief]:
    """Read each student's result once; write gradebook.csv, and with `pages` the feedback pages and
    report.html (run.json, which the report shows, must be written before). Returns the briefs.

    Args:
        roster: the course's roster (course.roster.Roster) or None: its students without a result
            get a `missing` row; students not on it are marked in the gradebook and the report.
    """
    out = Path(out)
    content = loader.load(course, assignment) if pages else None
    adjust = overrides_mod.load(course, assignment)
    listed = set(roster.ids) if roster is not None else None
    rows, briefs = [], []
    for result in class_report.each_result(out, students):
        result = overrides_mod.apply(result, adjust, assignment)
        rows.append(gradebook.row(assignment, result, on_roster=listed is None or result.student in listed))
        briefs.append(class_report.Brief.of(result, assignment))
        if pages:
            section = content.feedback_section(result.recorded, course.tolerance)
            atomic_write(out / layout.FEEDBACK_DIR / f"{result.student}.html",
                         feedback.render(course, assignment, result, section))
    missing = sorted(listed - set(students)) if listed is not None else []
    rows += [gradebook.missing_row(assignment, student) for student in missing]
    atomic_write(out / layout.GRADEBOOK_FILE, gradebook.text(assignment, rows))
    if pages:
        roll = class_report.Roll(missing=tuple(missing),
                                 unexpected=tuple(sorted(set(students) - listed)) if listed is not None else (),
                                 unused_overrides=tuple(o for o in adjust if o.student not in set(students)))
        atomic_write(out / layout.REPORT_FILE,
                     class_report.render(course, assignment, briefs, class_report.read_run(out), roll=roll))
    return briefs
