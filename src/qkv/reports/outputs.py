"""Everything a grading run writes from its results, in one pass over them: the gradebook, each
student's feedback page, and the class report (which needs only a brief per student, so memory
stays flat however large the class).

The results hold what the checks gave; here the manual adjustments (overrides) are applied and the
late policy is read, so changing either needs no regrade, only this pass.
"""

from __future__ import annotations

import bisect
from pathlib import Path

from qkv.content import figures, loader
from qkv.course import layout
from qkv.reports import class_report, class_tally, feedback, items
from qkv.results import gradebook
from qkv.results import overrides as overrides_mod
from qkv.results.records import atomic_file, atomic_write


class PerStudent:
    """One student's share of the outputs: the overrides applied to their result, their feedback page
    written (with pages), and the gradebook row and brief the class-wide files need. Built once per
    process, so a grading process can do this for each student it grades while the run goes on."""

    def __init__(self, course, assignment, out: Path, *, pages: bool = True):
        self.course, self.assignment, self.out, self.pages = course, assignment, Path(out), pages
        self.content = loader.load(course, assignment) if pages else None
        self.adjust = overrides_mod.load(course, assignment)
        self.errors: list[
            str
        ] = []  # grader errors met drawing pages: bugs to report, never the run's end

    def __call__(self, result) -> tuple[list[str], class_tally.Brief]:
        """(gradebook row as for a student on the roster, brief) of one result as grading wrote it."""
        assignment = self.assignment
        result = overrides_mod.apply(result, self.adjust, assignment)
        if self.pages:
            atomic_write(
                self.out / layout.FEEDBACK_DIR / f"{result.student}.html", self.page(result)
            )
        return gradebook.row(assignment, result), class_tally.Brief.of(result, assignment)

    def page(self, result) -> str:
        """The student's feedback page. What the content draws comes from the student's values: should
        drawing them fail, the page goes without the drawing (and the grader is told), never the run."""
        course, assignment = self.course, self.assignment
        try:
            assert self.content is not None, "loaded when pages are drawn"
            section = self.content.feedback_section(result.recorded, course.tolerance)
            return feedback.render(course, assignment, result, section)
        except Exception as e:
            self.errors.append(f"feedback page of {result.student}: {type(e).__name__}: {e}"[:300])
            note = figures.Note(
                f"This part of your page could not be drawn ({type(e).__name__}); your grades "
                "below are not affected. Tell your instructor."
            )
            return feedback.render(
                course, assignment, result, figures.Section("Figures", "", (note,))
            )


def write(
    course,
    assignment,
    out: Path,
    students: list[str],
    *,
    pages: bool = True,
    roster=None,
    done=(),
    errors: list | None = None,
) -> class_tally.Tally:
    """Read each student's result once, in student order; write gradebook.csv, and with `pages` the
    feedback pages and report.html (run.json, which the report shows, must be written before).
    Returns the class's numbers (their table of students is gone: the report has it).

    Args:
        roster: the course's roster (course.roster.Roster) or None: its students without a result
            get a `missing` row; students not on it are marked in the gradebook and the report.
        done: (student, what PerStudent gave) in student order (a spill.Spill's), for students whose
            share is already done (by the grading process that graded them, with the same overrides
            and pages): not read again.
        errors: where the grader errors met drawing the pages done here go (PerStudent.errors).
    """
    out = Path(out)
    per_student = PerStudent(course, assignment, out, pages=pages)
    listed = set(roster.ids) if roster is not None else None
    students = sorted(students)
    missing = sorted(listed - set(students)) if listed is not None else []
    with class_tally.Tally(assignment, rows_in=out if pages else None) as tally:
        rows = (
            row if listed is None or student in listed else gradebook.off_roster(row)
            for student, row in _tallied(_shares(out, students, iter(done), per_student), tally)
        )
        gradebook.write(
            out / layout.GRADEBOOK_FILE,
            assignment,
            rows,
            (gradebook.missing_row(assignment, student) for student in missing),
        )
        if errors is not None:
            errors += per_student.errors
        analysis = _item_analysis(out, students)
        items.write_csv(out / layout.ITEMS_FILE, analysis)
        if pages:
            roll = class_report.Roll(
                missing=tuple(missing),
                unexpected=tuple(s for s in students if s not in listed)
                if listed is not None
                else (),
                unused_overrides=tuple(
                    o for o in per_student.adjust if not _among(o.student, students)
                ),
            )
            with atomic_file(out / layout.REPORT_FILE) as f:
                class_report.write(
                    f,
                    course,
                    assignment,
                    tally,
                    class_report.read_run(out),
                    roll=roll,
                    items=items.section(analysis),
                )
    return tally


def _item_analysis(out: Path, students: list[str]) -> list[items.Item]:
    """Each quiz question's and check's statistics, the results read once more, one at a time."""
    tally = items.ItemTally()
    for result in class_report.each_result(out, students):
        tally.add(result)
    return tally.analysis()


def _among(student: str, students: list[str]) -> bool:
    """Whether `student` is in the sorted list `students`."""
    i = bisect.bisect_left(students, student)
    return i < len(students) and students[i] == student


def _shares(out: Path, students: list[str], done, per_student: PerStudent):
    """(student, (row, brief)) of each student in turn: from `done` when it has them, else read and done here."""
    ahead = next(done, None)
    for student in students:
        while ahead is not None and ahead[0] < student:  # a share nobody asked for
            ahead = next(done, None)
        if ahead is not None and ahead[0] == student:
            yield student, ahead[1]
            ahead = next(done, None)
        else:
            yield student, per_student(class_report.read_result(out, student))


def _tallied(shares, tally: class_tally.Tally):
    """(student, gradebook row) of each of `shares`, the brief added to the tally on the way."""
    for student, (row, brief) in shares:
        tally.add(brief, student)
        yield student, row
