"""`qkv nbgrader grade NBGRADER_COURSE --assignment A`: nbgrader's submissions, graded in this kit's sandbox.

nbgrader's own `autograde` runs each student's notebook, solution cells and hidden test cells alike,
in one kernel as the instructor: a solution cell can replace the code that scores it. This command
never runs a notebook. It reads `submitted/<student>/<A>/<module>.ipynb` (and `timestamp.txt`) as
`qkv grade` does, grades the solution cells in the sandbox with the hidden suites, and writes each
part's points into nbgrader's gradebook (through nbgrader's own API) as the auto score of the hidden
test cell `test_<part>` that `qkv nbgrader export` made, so `nbgrader export` and formgrader show them.
"""

from __future__ import annotations

from pathlib import Path

from qkv.course import layout
from qkv.course.config import Course
from qkv.errors import QkvError
from qkv.grade.batch import Summary, grade
from qkv.intake.discover import read_timestamp
from qkv.integrations.nbgrader_bridge import KIT_DIR
from qkv.results import records as results

GRADEBOOK = "gradebook.db"
GRADED_DIR = "qkv-graded"  # beside nbgrader's autograded/: this kit's results, feedback and report


def submitted_root(nbgrader_course: Path) -> Path:
    folder = Path(nbgrader_course) / layout.NBGRADER_SUBMITTED
    if not folder.is_dir():
        raise QkvError(
            f"{nbgrader_course}: no submitted/ folder; collect the submissions with nbgrader first"
        )
    return folder


def course_file(nbgrader_course: Path) -> Path:
    """The course `qkv nbgrader export` wrote beside nbgrader_config.py."""
    path = Path(nbgrader_course) / KIT_DIR / "course.yaml"
    if not path.is_file():
        raise QkvError(
            f"{path}: not found; give --course, or make the nbgrader course with `qkv nbgrader export`"
        )
    return path


def grade_course(
    course: Course,
    nbgrader_course: Path,
    *,
    assignment: str,
    out: Path | None = None,
    jobs: int | None = None,
    progress: bool = True,
    weak_sandbox: bool = False,
) -> tuple[Summary, Path]:
    """Grade the submitted notebooks and record the scores in nbgrader's gradebook.

    Args:
        course: the course.
        nbgrader_course: the nbgrader course folder, whose submitted/ is graded.
        assignment: the assignment's id.
        out: where results and feedback go (default: NBGRADER_COURSE/qkv-graded/<assignment>).
        jobs: grading processes, or None for the default.
        progress: show a progress bar.
        weak_sandbox: grade even when this machine lacks a sandbox layer.

    Returns:
        (what the run did, the output folder).
    """
    try:
        from nbgrader.api import Gradebook, MissingEntry  # noqa: PLC0415 - only this command needs nbgrader
    except ImportError:
        raise QkvError(
            "`qkv nbgrader grade` needs nbgrader installed in this environment"
        ) from None
    nbgrader_course = Path(nbgrader_course)
    out = Path(out) if out else nbgrader_course / GRADED_DIR / assignment
    summary = grade(
        course,
        submitted_root(nbgrader_course),
        assignment=assignment,
        out=out,
        jobs=jobs,
        progress=progress,
        weak_sandbox=weak_sandbox,
    )
    notebook = layout.module_name(course.assignment(assignment))
    with Gradebook(f"sqlite:///{nbgrader_course / GRADEBOOK}") as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise QkvError(
                f"{nbgrader_course / GRADEBOOK}: no assignment '{assignment}'; run "
                f"`nbgrader generate_assignment {assignment}` first"
            ) from None
        for student in summary.students:
            record(
                gb,
                MissingEntry,
                assignment,
                notebook,
                student,
                results.read(results.path_for(out, student)),
                read_timestamp(submitted_root(nbgrader_course) / student / assignment),
            )
    return summary, out


def record(
    gb,
    missing_entry,
    assignment: str,
    notebook: str,
    student: str,
    result: results.StudentResult,
    timestamp,
) -> None:
    """One student's part scores as the auto scores of the hidden test cells `test_<part>`.

    Args:
        gb: the course's open nbgrader Gradebook.
        missing_entry: nbgrader's MissingEntry, which gb raises for what it does not hold.
        assignment: the assignment's id, as nbgrader knows it.
        notebook: the notebook's name in nbgrader, without .ipynb (the student's module).
        student: the student's id.
        result: what grading gave the student.
        timestamp: when the notebook was handed in (timestamp.txt), or None.
    """
    gb.update_or_create_student(student)
    extra = {"timestamp": timestamp} if timestamp else {}
    try:
        gb.find_submission(assignment, student)
        if extra:
            gb.update_or_create_submission(assignment, student, **extra)
    except missing_entry:
        gb.add_submission(assignment, student, **extra)
    for part in result.columns:
        try:
            cell = gb.find_grade(f"test_{part}", notebook, assignment, student)
        except missing_entry:
            continue  # a part without a test cell in this notebook: nothing of nbgrader's to fill
        cell.auto_score = result.part_score(part)
    gb.db.commit()
