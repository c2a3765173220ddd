"""Everything a grading run writes from its results, in one pass over them: the gradebook, each
student's feedback page, and the class report (which needs only a brief per student, so memory
stays flat however large the class)."""
from __future__ import annotations

from pathlib import Path

from autograder.content import loader
from autograder.course import layout
from autograder.grading import gradebook
from autograder.grading.results import atomic_write
from autograder.reports import class_report, feedback


def write(course, assignment, out: Path, students: list[str], *, pages: bool = True) -> list[class_report.Brief]:
    """Read each student's result once; write gradebook.csv, and with `pages` the feedback pages and
    report.html (run.json, which the report shows, must be written before). Returns the briefs."""
    out = Path(out)
    content = loader.load(course, assignment) if pages else None
    rows, briefs = [], []
    for result in class_report.each_result(out, students):
        rows.append(gradebook.row(assignment, result))
        briefs.append(class_report.Brief.of(result))
        if pages:
            section = content.feedback_section(result.recorded, course.tolerance)
            atomic_write(out / layout.FEEDBACK_DIR / f"{result.student}.html",
                         feedback.render(course, assignment, result, section))
    atomic_write(out / layout.GRADEBOOK_FILE, gradebook.text(assignment, rows))
    if pages:
        atomic_write(out / layout.REPORT_FILE,
                     class_report.render(course, assignment, briefs, class_report.read_run(out)))
    return briefs
