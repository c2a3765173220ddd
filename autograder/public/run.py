"""`qkv check`: the student's own run of the public checks, with the student's code in the sandbox."""
from __future__ import annotations

from pathlib import Path

from autograder.content import loader
from autograder.course import layout
from autograder.course.config import Assignment, Course
from autograder.grading import submissions as submission
from autograder.public import cases as public_cases
from autograder.public import checks as public_checks
from autograder.public.checks import Line, NotImplementedYet
from autograder.sandbox.host import Sandbox


def _sandbox_call(session):
    def call(function, args):
        result = session.call(function, args)
        if result.kind == "returned":
            value = result.value
            return value, list(result.inputs_changed)
        if result.kind == "not_implemented":
            raise NotImplementedYet()
        raise Exception(result.message.removeprefix(f"{function}() "))
    return call


def check_file(course: Course, assignment: Assignment, path: Path) -> list[Line]:
    """Run the public checks on one student file (or notebook) and return a line per function."""
    files = submission.read_code(course, assignment, path)
    content = loader.load(course, assignment)
    entry = layout.code_file(assignment)
    tol = course.tolerance
    cases = public_cases.build(content, content.reference, rtol=tol.rtol, atol=tol.atol,
                               module=layout.module_name(assignment))
    with Sandbox(course.limits, packages=course.packages) as sandbox, sandbox.open(files, entry=entry) as session:
        if not session.load.ok:
            return [Line(entry, "fail", session.load.message)]
        call = _sandbox_call(session)
        lines = [public_checks.check_function(call, part.function, cases) for part in assignment.parts]
    catalogue = content.catalogue
    failing = [line.function for line in lines if line.status == "fail"]
    return [Line(line.function, line.status, line.message + catalogue.chain_hint(line.function, failing))
            if line.status == "fail" else line for line in lines]


def check_notebook_answers(course: Course, assignment: Assignment, path: Path) -> tuple[bool, list[str]]:
    """The form of a notebook's quiz answers cell: (well-formed, one line per problem or one saying it is fine).

    Returns (True, []) when the assignment has no quiz.
    """
    if not assignment.quiz:
        return True, []
    from autograder.quiz import grading as quiz  # noqa: PLC0415 - only assignments with a quiz need it
    master = quiz.load_quiz(course, assignment)
    sub = submission.Submission(Path(path).stem, Path(path), None)
    sheet = quiz.read_answers(submission.answers_source(course, sub), master)
    problems = sheet.lines()
    return not problems, problems or [f"{sheet.name}: well-formed, {sheet.answered} of {sheet.total} questions answered"]
