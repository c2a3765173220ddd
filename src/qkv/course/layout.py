"""Every file and folder name the kit reads or writes, in one place (as nbgrader's coursedir does).

An assignment's student file is named after its reference: solutions/attention/attention.py makes
students hand in attention.py (or attention.ipynb). Everything else is a fixed name.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    from qkv.course.config import Assignment, Course

COURSE_FILE = "course.yaml"
SCHEMA_FILE = "course.schema.json"

# A student id names a submission's folder or file: letters (any script), digits and . _ - @ +, not
# starting with a dot, safe as a file name and a CSV cell. Used with fullmatch: `$` would accept a
# trailing newline.
STUDENT_ID = re.compile(r"[^\W][\w.@+-]{0,99}")
ID_RULE = "letters, digits and . _ - @ +, starting with a letter or digit"  # what an error says of STUDENT_ID


def is_valid_id(student: object) -> TypeGuard[str]:
    """A plain one-line student id: letters, digits and . _ - @ +, at most 100, not starting with a dot."""
    return isinstance(student, str) and STUDENT_ID.fullmatch(student) is not None


# A submission
ANSWERS_FILE = "answers.yaml"
ANSWERS_FILES = (
    ANSWERS_FILE,
    "answers.yml",
)  # the names a hand-in's quiz answers may have, in order of preference
TIMESTAMP_FILE = "timestamp.txt"

# An assignment's content folder, solutions/<assignment>/
CONTENT_MODULE = "content"  # content.py: the trusted hooks of the assignment
SUITES_DIR = "suites"  # the hidden suites, test_<part>.py
STUDENT_README = "README.md"  # the template of the release's README

# The release, exercises/<assignment>/
EXERCISES_DIR = "exercises"
DIST_DIR = "dist"
QUIZ_FILE = "quiz.md"
QUIZ_FORM_FILE = (
    "quiz_form.json"  # ids, kinds and choice counts only: what `qkv check answers.yaml` needs
)
CASES_FILE = "public_cases.json"
PUBLIC_CHECKS_FILE = "public_checks.py"
COMPARE_FILE = "compare.py"

# What grading writes into DIR
GRADEBOOK_FILE = "gradebook.csv"
ITEMS_FILE = "items.csv"  # item analysis: each quiz question and check (reports/items.py)
RESULTS_DIR = "results"
HANDINS_DIR = "handins"  # handins/<student>/<hand-in>.json when a student handed in several times
FEEDBACK_DIR = "feedback"
REPORT_FILE = "report.html"
RUN_FILE = "run.json"


def module_name(assignment: Assignment) -> str:
    """The student's module: the stem of the reference's file name (attention for attention.py)."""
    return Path(assignment.source).stem


def code_file(assignment: Assignment) -> str:
    return f"{module_name(assignment)}.py"


def notebook_file(assignment: Assignment) -> str:
    return f"{module_name(assignment)}.ipynb"


def public_test_file(assignment: Assignment) -> str:
    return f"test_{module_name(assignment)}.py"


def submission_files(assignment: Assignment) -> tuple[str, str]:
    """The names a submission's code may have, in order of preference."""
    return code_file(assignment), notebook_file(assignment)


def released_folder(path: Path) -> Path | None:
    """The release folder a path is in (or is): the folder holding public_cases.json, else None."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    return folder if (folder / CASES_FILE).is_file() else None


def content_dir(course: Course, assignment: Assignment) -> Path:
    """solutions/<assignment>/: the folder that holds the reference and everything else of it."""
    return course.path(assignment.source).parent


def suites_dir(course: Course, assignment: Assignment) -> Path:
    return content_dir(course, assignment) / SUITES_DIR


def release_dir(course: Course, assignment: Assignment) -> Path:
    return course.root / EXERCISES_DIR / assignment.id


def bundle_path(course: Course, assignment: Assignment) -> Path:
    return course.root / DIST_DIR / f"{assignment.id}-student.zip"


# nbgrader's course folder
NBGRADER_CONFIG = "nbgrader_config.py"
NBGRADER_SUBMITTED = "submitted"


def submissions_root(root: Path, assignment: str | None = None) -> Path:
    """The folder whose entries are the submissions: root, or an nbgrader course's submitted/."""
    root = Path(root)
    if assignment and (root / NBGRADER_SUBMITTED).is_dir() and (root / NBGRADER_CONFIG).is_file():
        return root / NBGRADER_SUBMITTED
    return root
