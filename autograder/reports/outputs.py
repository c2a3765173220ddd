"""Everything a grading run writes from its results, in one pass over them: the gradebook, each
student's feedback page, and the class report (which needs only a brief per student, so memory
stays flat however large the class).

The results hold what the checks gave; here the manual adjustments (overrides) are applied and the
late policy is read, so changing either needs no regrade, only this pass.
"""
from __future__ import annotations

from pathlib import Path

from autograder.content import figures, loader
from autograder.course import layout
from autograder.grading import gradebook, overrides as overrides_mod
from autograder.grading.results import atomic_write
from autograder.reports import class_report, feedback


class PerStudent:
    """One student's share of the outputs: the overrides applied to their result, their feedback page
    written (with pages), and the gradebook row and brief the class-wide files need. Built once per
    process, so a grading process can do this for each student it grades while the run goes on."""

    def __init__(self, course, assignment, out: Path, *, pages: bool = True):
        self.course, self.assignment, self.out, self.pages = course, assignment, Path(out), pages
        self.content = loader.load(course, assignment) if pages else None
        self.adjust = overrides_mod.load(course, assignment)
        self.errors: list[str] = []  # grader errors met drawing pages: bugs to report, never the run's end

    def __call__(self, result) -> tuple[list[str], class_report.Brief]:
        """(gradebook row as for a student on the roster, brief) of one result as grading wrote it."""
        course, assignment = self.course, self.assignment
        result = overrides_mod.apply(result, self.adjust, assignment)
        if self.pages:
            atomic_write(self.out / layout.FEEDBACK_DIR / f"{result.student}.html", self._page(result))
        return gradebook.row(assignment, result), class_report.Brief.of(result, assignment)

    def _page(self, result) -> str:
        """The student's feedback page. What the content draws comes from the student's values: should
        drawing them fail, the page goes without the drawing (and the grader is told), never the run."""
        course, assignment = self.course, self.assignment
        try:
            section = self.content.feedback_section(result.recorded, course.tolerance)
            return feedback.render(course, assignment, result, section)
        except Exception as e:  # noqa: BLE001 - a bug in the content's figures; the grades stand
            self.errors.append(f"feedback page of {result.student}: {type(e).__name__}: {e}"[:300])
            note = figures.Note(f"This part of your page could not be drawn ({type(e).__name__}); your grades "
                                "below are not affected. Tell your instructor.")
            return feedback.render(course, assignment, result, figures.Section("Figures", "", (note,)))


def write(course, assignment, out: Path, students: list[str], *, pages: bool = True,
          roster=None, done: dict | None = None, errors: list | None = None) -> list[class_report.Brief]:
    """Read each student's result once; write gradebook.csv, and with `pages` the feedback pages and
    report.html (run.json, which the report shows, must be written before). Returns the briefs.

    Args:
        roster: the course's roster (course.roster.Roster) or None: its students without a result
            get a `missing` row; students not on it are marked in the gradebook and the report.
        done: student -> what PerStudent gave, for students whose share is already done (by the
            grading process that graded them, with the same overrides and pages): not read again.
        errors: where the grader errors met drawing the pages done here go (PerStudent.errors).
    """
    out = Path(out)
    done = done or {}
    per_student = PerStudent(course, assignment, out, pages=pages)
    listed = set(roster.ids) if roster is not None else None
    rows, briefs = [], []
    for student in sorted(students):
        row, brief = done[student] if student in done else per_student(class_report.read_result(out, student))
        rows.append(row if listed is None or student in listed else gradebook.off_roster(row))
        briefs.append(brief)
    if errors is not None:
        errors += per_student.errors
    missing = sorted(listed - set(students)) if listed is not None else []
    rows += [gradebook.missing_row(assignment, student) for student in missing]
    atomic_write(out / layout.GRADEBOOK_FILE, gradebook.text(assignment, rows))
    if pages:
        adjust = per_student.adjust
        roll = class_report.Roll(missing=tuple(missing),
                                 unexpected=tuple(sorted(set(students) - listed)) if listed is not None else (),
                                 unused_overrides=tuple(o for o in adjust if o.student not in set(students)))
        atomic_write(out / layout.REPORT_FILE,
                     class_report.render(course, assignment, briefs, class_report.read_run(out), roll=roll))
    return briefs
