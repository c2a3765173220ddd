"""Finding and reading submissions: untrusted names, sizes and encodings, each checked with one clear line."""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path

from autograder.content import loader
from autograder.sandbox import wire
from autograder.course import layout
from autograder.course.config import Assignment, Course
from autograder.errors import QkvError

# Letters (any script), digits and . _ - @ +, not starting with a dot: safe as a file name and a CSV cell.
STUDENT_ID = re.compile(r"^[^\W][\w.@+-]{0,99}$")


@dataclass(frozen=True)
class Submission:
    """One student's work: a folder (or a single file) named by the student id."""

    student: str
    code: Path | None  # the student's .py file or notebook
    answers: object = None  # answers.yaml (a Path), or quiz_answers.Answers once read ahead
    problem: str = ""  # why the submission cannot be graded at all, if it cannot
    files: dict[str, bytes] | None = None  # the code as read_code gives it, when read ahead (`with_files`)


def _read_bytes(path: Path, limit: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > limit:
            raise QkvError(f"{path}: {size} bytes, larger than the {limit}-byte limit")
        with open(path, "rb") as f:
            data = f.read(limit + 1)  # never more, even if the file grew since stat()
    except FileNotFoundError:
        raise QkvError(f"{path}: not found") from None
    except IsADirectoryError:
        raise QkvError(f"{path}: is a folder; give the file inside it") from None
    except OSError as e:
        raise QkvError(f"{path}: cannot read ({e.strerror})") from None
    if len(data) > limit:
        raise QkvError(f"{path}: larger than the {limit}-byte limit")
    return data


def is_notebook(path: Path | None) -> bool:
    return path is not None and Path(path).suffix == ".ipynb"


def read_code(course: Course, assignment: Assignment, path: Path) -> dict[str, bytes]:
    """The files a worker gets for one submission: {'<module>.py': source bytes} (and, for a
    notebook, the map from lines of that code back to its cells).

    A notebook may be as large as limits.max_notebook_kb (outputs and images included); the code
    taken from its solution cells must fit limits.max_submission_kb, like a .py file.
    """
    entry = layout.code_file(assignment)
    path = Path(path)
    limit = course.limits.max_submission_kb * 1024
    if is_notebook(path):
        from autograder.notebook import read as notebook  # noqa: PLC0415 - only notebook submissions need it
        functions = loader.load(course, assignment).functions
        data, starts = notebook.extract(_read_bytes(path, course.limits.max_notebook_kb * 1024), path, functions)
        if len(data) > limit:
            raise QkvError(f"{path}: its solution cells hold {len(data)} bytes of code, "
                           f"more than the {limit}-byte limit")
        # The worker names lines by cell with this map ("cell 7 (score), line 3"), as the student sees them.
        return {entry: data, wire.CELL_MAP_FILE: json.dumps(starts).encode()}
    data = _read_bytes(path, limit)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise QkvError(f"{path}: not UTF-8 text (byte {e.start}); save the file as UTF-8") from None
    return {entry: data}


def answers_source(course: Course, sub: "Submission"):
    """Where the quiz grader reads this student's answers: answers.yaml when there is one, else the
    answers cell of their notebook (as quiz_answers.Answers), else None (nothing submitted)."""
    if sub.answers is not None or not is_notebook(sub.code):
        return sub.answers  # a path, or Answers already read by with_files
    from autograder.notebook import read as notebook  # noqa: PLC0415
    from autograder.quiz.answers import Answers  # noqa: PLC0415
    try:
        data = _read_bytes(Path(sub.code), course.limits.max_notebook_kb * 1024)
    except QkvError as e:  # named by the file's name only: this line goes into feedback
        name = Path(sub.code).name
        return Answers(f"{name} (quiz answers cell)", None,
                       f"{str(e).replace(str(sub.code), name)}; no quiz answers could be graded")
    return notebook.answers(data, sub.code)


def with_files(course: Course, assignment: Assignment, sub: Submission) -> Submission:
    """The submission with its code and quiz answers read into memory, for a grader that cannot see this disk.

    Reading is the caller's side: the size limit and the encoding checks of read_code apply here,
    and a file that fails them becomes the submission's problem, as it would when graded locally.
    """
    from autograder.quiz.answers import read_ahead  # noqa: PLC0415

    answers = read_ahead(answers_source(course, sub))  # the quiz answers travel too, as text
    if sub.problem or sub.files is not None or sub.code is None:
        return dataclasses.replace(sub, answers=answers)
    try:
        return dataclasses.replace(sub, files=read_code(course, assignment, sub.code), answers=answers)
    except QkvError as e:
        return dataclasses.replace(sub, problem=str(e), answers=answers)


def _from_folder(folder: Path, names: tuple[str, ...]) -> Submission:
    student = folder.name
    code = next((folder / n for n in names if (folder / n).is_file()), None)
    answers = folder / layout.ANSWERS_FILE if (folder / layout.ANSWERS_FILE).is_file() else None
    problem = "" if code else f"no {' or '.join(names)} in the folder"
    return Submission(student, code, answers, problem)


def discover(root: Path, names: tuple[str, ...]) -> tuple[list[Submission], list[str]]:
    """Every submission under root, sorted by student id, and one line per entry that was skipped.

    Args:
        names: the file names a submission's code may have (layout.submission_files).
    """
    root = Path(root)
    if not root.is_dir():
        raise QkvError(f"{root}: not a folder of submissions")
    found: dict[str, Submission] = {}
    skipped = []
    for entry in sorted(root.iterdir()):
        name = entry.name
        if name.startswith("."):
            continue
        if entry.is_dir():
            sub = _from_folder(entry, names)
        elif entry.suffix in (".py", ".ipynb") and entry.is_file():
            sub = Submission(entry.stem, entry, None)
        else:
            skipped.append(f"{entry}: skipped, not a submission folder, .py or .ipynb file")
            continue
        if not STUDENT_ID.match(sub.student):
            skipped.append(f"{entry}: skipped, '{sub.student}' is not a usable student id "
                           "(letters, digits and . _ - @ + only)")
            continue
        if sub.student in found:
            skipped.append(f"{entry}: skipped, student '{sub.student}' already has a submission")
            continue
        found[sub.student] = sub
    return [found[k] for k in sorted(found)], skipped
