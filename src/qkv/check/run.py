"""`qkv check`: the student's own run of the public checks, with the student's code in the sandbox.

It works from the course (an instructor's or a grader's copy: the cases are computed from the
reference) or from a released folder alone (a student's copy: public_cases.json and quiz_form.json
carry the cases, the tolerance and the form of the quiz, and nothing secret).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from qkv.content import loader
from qkv.course import layout
from qkv.course.config import Assignment, Course, Limits
from qkv.errors import QkvError
from qkv.intake import submissions as submission
from qkv.quiz import form
from qkv.quiz import grading as quiz_grading
from qkv.quiz.answers import read_answers
from qkv.sandbox.host import Sandbox
from qkv.shipped import cases as public_cases
from qkv.shipped import checks as public_checks
from qkv.shipped.checks import Line, NotImplementedYet


@dataclass(frozen=True)
class Target:
    """What the public checks of one assignment need, wherever they come from."""

    module: str  # the student's module name: attention for attention.py
    cases: dict  # as in public_cases.json
    limits: Limits
    packages: tuple[str, ...]
    quiz: object | None  # a quiz master or a released quiz form; None when there is no quiz

    @property
    def code_file(self) -> str:
        return f"{self.module}.py"

    @property
    def notebook_file(self) -> str:
        return f"{self.module}.ipynb"

    @property
    def functions(self) -> list[str]:
        return list(self.cases["functions"])

    @property
    def timeouts(self) -> dict[str, float]:
        """Seconds one call may take, for the functions that have their own limit (a copied file may say
        anything: what is not a positive number of seconds is left out)."""
        given = self.cases.get("timeouts")
        return (
            {
                f: float(s)
                for f, s in given.items()
                if isinstance(f, str) and type(s) in (int, float) and 0 < s < float("inf")
            }
            if isinstance(given, dict)
            else {}
        )


def for_course(course: Course, assignment: Assignment) -> Target:
    """The checks as the course defines them (the cases computed from the reference now)."""

    content = loader.load(course, assignment)
    cases = public_cases.build(
        content,
        content.reference,
        rtol=course.tolerance.rtol,
        atol=course.tolerance.atol,
        module=layout.module_name(assignment),
        packages=course.packages,
        timeouts=assignment.call_timeouts(),
    )
    quiz = None
    if assignment.quiz:
        quiz = quiz_grading.load_quiz(course, assignment)
    return Target(
        layout.module_name(assignment), cases, course.limits, tuple(course.packages), quiz
    )


def for_release(folder: Path) -> Target:
    """The checks as a released folder carries them, with no course at hand."""
    cases_path = Path(folder) / layout.CASES_FILE
    try:
        cases = json.loads(cases_path.read_text(encoding="utf-8"))
        module = str(cases["module"])
    except (OSError, ValueError, KeyError, TypeError):
        raise QkvError(
            f"{cases_path}: unreadable; copy it again from the released folder"
        ) from None
    quiz = None
    form_path = Path(folder) / layout.QUIZ_FORM_FILE
    if form_path.is_file():
        quiz = form.loads(form_path.read_text(encoding="utf-8"), name=str(form_path))
    return Target(module, cases, Limits(), tuple(cases.get("packages", ["numpy"])), quiz)


class _Calls:
    """Calls into one sandboxed child, started again after one dies, so that a function that
    loops forever or crashes its process costs that function only."""

    def __init__(self, sandbox: Sandbox, files: dict[str, bytes], entry: str, timeouts=None):
        self.sandbox, self.files, self.entry, self.timeouts = sandbox, files, entry, timeouts
        self.session = sandbox.open(files, entry=entry, timeouts=timeouts)

    def __call__(self, function, args):
        if self.session.status is not None:  # the last call ended the child: start another
            self.session.close()
            self.session = self.sandbox.open(self.files, entry=self.entry, timeouts=self.timeouts)
        result = self.session.call(function, args)
        if result.kind == "returned":
            return result.value, list(result.inputs_changed)
        if result.kind == "not_implemented":
            raise NotImplementedYet()
        raise Exception(result.message.removeprefix(f"{function}() "))

    def close(self) -> None:
        self.session.close()


def paths_to_check(target: Target, path: Path) -> tuple[Path | None, Path | None]:
    """(code to check, answers to check) for a file or a folder."""
    answers_names = layout.ANSWERS_FILES
    if path.is_dir():
        code = next(
            (path / n for n in (target.code_file, target.notebook_file) if (path / n).is_file()),
            None,
        )
        answers = (
            next((path / n for n in answers_names if (path / n).is_file()), None)
            if target.quiz is not None
            else None
        )
        if code is None and answers is None:
            raise QkvError(
                f"{path}: holds no {target.code_file}, {target.notebook_file} or {layout.ANSWERS_FILE}"
            )
        return code, answers
    if path.suffix in (".yaml", ".yml") or path.name in answers_names:
        if target.quiz is None:
            raise QkvError(f"{path.name}: this assignment has no quiz")
        return None, path
    if path.suffix in (".py", ".ipynb"):
        return path, None
    raise QkvError(
        f"{path.name}: qkv check takes {target.code_file}, {target.notebook_file}, "
        f"{layout.ANSWERS_FILE} or a folder holding them"
    )


def named_by(course: Course, path: Path) -> Assignment:
    """The assignment whose file (training.ipynb) or folder (exercises/training) the path is, or the
    course's first."""
    path = Path(path)
    for assignment in course.assignments:
        names = {n.lower() for n in layout.submission_files(assignment)}
        if path.name.lower() in names or (
            path.is_dir() and any((path / n).is_file() for n in names)
        ):
            return assignment
    return course.assignments[0]


def check_code(target: Target, path: Path) -> list[Line]:
    """Run the public checks on one student file (or notebook) and return a line per function."""
    files = submission.code_files(
        path, entry=target.code_file, functions=target.functions, limits=target.limits
    )
    with Sandbox(target.limits, packages=target.packages) as sandbox:
        calls = _Calls(sandbox, files, target.code_file, target.timeouts)
        try:
            if not calls.session.load.ok:
                return [Line(target.code_file, "fail", calls.session.load.message)]
            notes = [Line(target.code_file, "note", text) for text in calls.session.load.stopped]
            lines = [
                public_checks.check_function(calls, function, target.cases)
                for function in target.functions
            ]
        finally:
            calls.close()
    return notes + public_checks.with_chain_hints(lines, target.cases)


def check_answers(target: Target, source) -> tuple[bool, list[str]]:
    """The form of quiz answers (a file, or a notebook's answers cell already read): (well-formed,
    one line per problem, or one saying it is fine). (True, []) when there is no quiz."""
    if target.quiz is None:
        return True, []

    sheet = read_answers(source, target.quiz)
    problems = sheet.lines()
    return not problems, problems or [
        f"{sheet.name}: well-formed, {sheet.answered} of {sheet.total} questions answered"
    ]


def check_notebook_answers(target: Target, path: Path) -> tuple[bool, list[str]]:
    """The form of a notebook's quiz answers cell."""
    if target.quiz is None:
        return True, []
    return check_answers(target, submission.notebook_answers(path, target.limits))


def check_file(course: Course, assignment: Assignment, path: Path) -> list[Line]:
    """check_code for the course's assignment (library users and tests).

    Args:
        course: the course.
        assignment: the assignment.
        path: the student's .py file or notebook.

    Returns:
        One line per function checked.
    """
    return check_code(for_course(course, assignment), path)
