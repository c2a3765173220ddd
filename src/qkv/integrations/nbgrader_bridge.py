"""What the hidden test cells of an exported nbgrader notebook call: one part's points, from this kit.

nbgrader runs each autograder test cell and, when the cell's last value is a number, gives that many
points (its "partial credit"). A test cell here calls `part_score(part, assignment=..., notebook=...)`:
the first call grades the whole notebook with `qkv grade`'s own machinery (the sandbox, the hidden
suites, the quiz) in a subprocess, and every call returns one part's points, printing on stdout what
went wrong (a line on stderr would make nbgrader give the cell zero).

More in docs/internals/integrations.md.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from qkv.course import layout
from qkv.errors import QkvError
from qkv.intake.submissions import is_valid_id
from qkv.results import records as results

KIT_DIR = "qkv"  # beside nbgrader_config.py: the course.yaml and the instructor files grading needs
NBGRADER_CONFIG = "nbgrader_config.py"
GRADING_TIMEOUT_S = 600


def find_course(start: Path) -> Path:
    """qkv/course.yaml beside the nearest nbgrader_config.py at or above `start`."""
    for folder in (start, *start.parents):
        if (folder / NBGRADER_CONFIG).is_file() and (folder / KIT_DIR / "course.yaml").is_file():
            return folder / KIT_DIR / "course.yaml"
    raise QkvError(
        f"{start}: no {NBGRADER_CONFIG} with a {KIT_DIR}/course.yaml beside it in this folder "
        "or above; run `qkv nbgrader export` to make the nbgrader course"
    )


def student_of(notebook: Path) -> str:
    """nbgrader's <step>/<student>/<assignment>/ layout: the student; outside of it, 'instructor'."""
    folder = notebook.resolve().parent
    return folder.parent.name if folder.parent.parent.name == "autograded" else "instructor"


@functools.lru_cache(maxsize=4)
def _graded(
    course_file: str, assignment: str, student: str, notebook: str, digest: str
) -> results.StudentResult:
    """Grade one notebook with `qkv grade` in a subprocess (digest: the notebook's content, for the cache)."""
    with tempfile.TemporaryDirectory(prefix="qkv-nbgrader-") as tmp:
        folder = Path(tmp) / "submissions" / student
        folder.mkdir(parents=True)
        shutil.copyfile(notebook, folder / Path(notebook).name)
        out = Path(tmp) / "graded"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "qkv.integrations.nbgrader_bridge",
                course_file,
                assignment,
                str(folder.parent),
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=GRADING_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"qkv-kit could not grade {Path(notebook).name}: {last}")
        return results.read(results.path_for(out, student))


def part_result(
    part: str,
    *,
    assignment: str,
    notebook: Path | str,
    course: Path | str | None = None,
    student: str | None = None,
) -> results.StudentResult:
    """The whole notebook's StudentResult (graded once per notebook content), checking `part` exists.

    Args:
        part: a part's id in course.yaml, or "quiz", as the test cell names it.
        assignment: the assignment's id.
        notebook: the notebook nbgrader is grading.
        course: its course.yaml, or None for qkv/course.yaml beside the nearest nbgrader_config.py.
        student: the student's id, or None to take it from nbgrader's folders (see student_of).
    """
    path = Path(notebook).resolve()
    course_file = Path(course).resolve() if course else find_course(path.parent)
    student = student or student_of(path)
    if not is_valid_id(student):
        raise QkvError(f"'{student}' is not a usable student id ({layout.ID_RULE})")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    result = _graded(str(course_file), assignment, student, str(path), digest)
    if part not in result.columns:
        raise QkvError(f"unknown part '{part}': the parts are {', '.join(result.columns)}")
    return result


def part_score(
    part: str,
    *,
    assignment: str,
    notebook: Path | str,
    course: Path | str | None = None,
    student: str | None = None,
) -> float:
    """Points earned in one part (or "quiz"); prints what failed in it, for the student's feedback.

    Args:
        part: a part's id in course.yaml, or "quiz", as the test cell names it.
        assignment: the assignment's id.
        notebook: the notebook nbgrader is grading.
        course: its course.yaml, or None for qkv/course.yaml beside the nearest nbgrader_config.py.
        student: the student's id, or None to take it from nbgrader's folders (see student_of).
    """
    result = part_result(
        part, assignment=assignment, notebook=notebook, course=course, student=student
    )
    score, full = result.part_score(part), result.part_max(part)
    print(f"{part}: {score:g} of {full:g} points")
    if result.status != "graded":
        print(result.status)
    for t in result.tests:
        if t.part == part and t.outcome != "passed":
            print(f"- {t.name}: {t.output}")
    return score


def main(argv: list[str]) -> int:
    """python -m qkv.integrations.nbgrader_bridge COURSE ASSIGNMENT SUBMISSIONS OUT: grade, no pages."""
    # The student's kernel imports this module: only this subprocess may load the grader.
    from qkv.course.config import load_course  # noqa: PLC0415 - see above
    from qkv.grade import batch as grade  # noqa: PLC0415 - see above

    course_file, assignment, submissions, out = argv
    grade.grade(
        load_course(course_file),
        Path(submissions),
        assignment=assignment,
        out=Path(out),
        jobs=1,
        progress=False,
        pages=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
