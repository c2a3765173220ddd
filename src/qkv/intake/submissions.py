"""A submission and its code as the sandbox gets it: sizes and encodings checked with one clear line."""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from qkv.content import loader
from qkv.course import layout
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.intake import notebook, python_source
from qkv.intake.files import is_notebook, read_bytes
from qkv.intake.own_modules import own_modules
from qkv.quiz.answers import Answers, read_ahead
from qkv.sandbox import wire

STUDENT_ID = layout.STUDENT_ID
is_valid_id = layout.is_valid_id  # re-exported: callers ask the submissions module


@dataclass(frozen=True)
class Submission:
    """One student's work: a folder (or a single file) named by the student id."""

    student: str
    code: Path | None  # the student's .py file or notebook
    answers: object = None  # answers.yaml (a Path), or quiz_answers.Answers once read ahead
    problem: str = ""  # why the submission cannot be graded at all, if it cannot
    files: dict[str, bytes] | None = (
        None  # the code as read_code gives it, when read ahead (`with_files`)
    )
    handin: str = ""  # the hand-in's sub-folder when the student handed in several times, else ''
    submitted_at: str | None = None  # when it was handed in (deadlines.iso), from timestamp.txt
    record: dict = field(
        default_factory=dict
    )  # facts the result keeps (hand-in, time, input hashes)

    @property
    def key(self) -> str:
        """Unique in a run: the student, or student/hand-in."""
        return f"{self.student}/{self.handin}" if self.handin else self.student


def read_code(course: Course, assignment: Assignment, path: Path) -> dict[str, bytes]:
    """The files a child gets for one submission: {'<module>.py': source bytes}.

    For a notebook the map from lines of that code back to its cells comes too.

    Args:
        course: the course, for its limits.
        assignment: the assignment, for its functions and file names.
        path: the submission's code file.

    Returns:
        The files by name.

    Raises:
        QkvError: one line on a file that is too large, not UTF-8 or not a notebook.
    """
    functions = loader.load(course, assignment).functions if is_notebook(path) else ()
    try:
        return code_files(
            path, entry=layout.code_file(assignment), functions=functions, limits=course.limits
        )
    except QkvError as e:  # said to the student: files named as in their submission, not our disk
        raise QkvError(str(e).replace(f"{Path(path).parent}{os.sep}", "")) from None


def code_files(path: Path, *, entry: str, functions, limits) -> dict[str, bytes]:
    """read_code without a course.

    A notebook may be as large as limits.max_notebook_kb (outputs and images included); the code
    taken from its solution cells must fit limits.max_submission_kb, like a .py file.

    Args:
        path: the submission's code file.
        entry: the module's file name in the child's folder.
        functions: those a notebook's solution cells may define.
        limits: the course's limits.

    Returns:
        The files by name.

    Raises:
        QkvError: one line on a file that is too large, not UTF-8 or not a notebook.
    """
    path = Path(path)
    limit = limits.max_submission_kb * 1024
    if is_notebook(path):
        data, starts = notebook.extract(
            read_bytes(path, limits.max_notebook_kb * 1024), path, functions
        )
        if len(data) > limit:
            raise QkvError(
                f"{path}: its solution cells hold {len(data)} bytes of code, "
                f"more than the {limit}-byte limit"
            )
        # The child names lines by cell with this map ("cell 7 (score), line 3"), as the student sees them.
        return {
            entry: data,
            wire.CELL_MAP_FILE: json.dumps(starts).encode(),
            **own_modules(path.parent, data, entry=entry, limit=limit, read=read_bytes),
        }
    data = read_bytes(path, limit)
    modules = own_modules(path.parent, data, entry=entry, limit=limit, read=read_bytes)
    try:
        data = python_source.as_python_reads(data)
    except (SyntaxError, LookupError, UnicodeDecodeError) as e:
        where = f" (byte {e.start})" if isinstance(e, UnicodeDecodeError) else ""
        raise QkvError(
            f"{path}: not UTF-8 text{where}, and no coding line says what it is; save the file as UTF-8"
        ) from None
    return {entry: data, **modules}


def notebook_answers(path: Path, limits):
    """The quiz answers cell of a notebook, as quiz.answers.Answers (its problem said when unreadable)."""
    try:
        data = read_bytes(Path(path), limits.max_notebook_kb * 1024)
    except QkvError as e:  # named by the file's name only: this line goes into feedback
        name = Path(path).name
        return Answers(
            f"{name} (quiz answers cell)",
            None,
            f"{str(e).replace(str(path), name)}; no quiz answers could be graded",
        )
    return notebook.answers(data, path)


def answers_source(course: Course, sub: Submission):
    """Where the quiz grader reads this student's answers: answers.yaml when there is one, else the
    answers cell of their notebook (as quiz_answers.Answers), else None (nothing submitted)."""
    if sub.answers is not None or sub.code is None or not is_notebook(sub.code):
        return sub.answers  # a path, or Answers already read by with_files
    return notebook_answers(sub.code, course.limits)


def with_files(course: Course, assignment: Assignment, sub: Submission) -> Submission:
    """The submission with its code and quiz answers read into memory.

    Reading is the caller's side: the size limit and the encoding checks of read_code apply here,
    and a file that fails them becomes the submission's problem, as it would when graded locally.

    Args:
        course: the course.
        assignment: the assignment.
        sub: the submission, as discovered.

    Returns:
        The submission with `files` (or `problem`) and its answers set.
    """

    answers = read_ahead(answers_source(course, sub))  # the quiz answers travel too, as text
    if sub.problem or sub.files is not None or sub.code is None:
        return dataclasses.replace(sub, answers=answers)
    try:
        return dataclasses.replace(
            sub, files=read_code(course, assignment, sub.code), answers=answers
        )
    except QkvError as e:
        return dataclasses.replace(sub, problem=str(e), answers=answers)
