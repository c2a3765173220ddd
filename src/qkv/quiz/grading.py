"""Quizzes: grading answers.yaml into TestResults, against each student's variant of the master.

Each student gets their own numbers and their own choice order (quiz/variants.py). Choice letters
are those of the student's own copy (a, b, c in the order shown to them), so copying another
student's letters scores nothing. The grader calls grade_answers(); the CLI shows a copy
(quiz_render) and checks the form of an answers file.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from qkv.course.config import Assignment, Course
from qkv.quiz.answers import Answers, Sheet, read_answers
from qkv.quiz.kinds import KINDS
from qkv.quiz.master import Question, Quiz, load_quiz, parse_quiz
from qkv.quiz.variants import Posed, fill, format_numbers, variant, variants
from qkv.results.outcomes import Outcome
from qkv.results.records import TestResult

__all__ = [
    "Answers",
    "Posed",
    "Question",
    "Quiz",
    "check_answers_file",
    "fill",
    "format_numbers",
    "grade_answers",
    "load_quiz",
    "parse_quiz",
    "read_answers",
    "show_answer",
    "variant",
]


# ---------------------------------------------------------------------------------------------
# Checking and grading a student's answers.yaml.


def check_answers_file(path: Path, quiz: Quiz) -> list[str]:
    """One line per problem with the FORM of an answers file (ids, types), not its correctness."""
    return read_answers(path, quiz).lines()


def show_answer(p: Posed) -> str:
    """The right answer in words, for feedback and the answer key's comments."""
    q, a = p.question, p.answer
    if q.kind == "single":
        return f"{a}) {p.choice(a).text}"
    if q.kind == "multiple":
        return "[" + ", ".join(sorted(a)) + "]"
    if q.kind == "truefalse":
        return "true" if a else "false"
    return format_numbers(np.asarray(a), 4) if q.shape else f"{a:.4f}"


def _judge(p: Posed, value) -> tuple[float, list[str]]:
    """Fraction of the points, and the sentences that explain a wrong answer."""
    q = p.question
    fraction = KINDS[q.kind].score(value, p.answer, q.tolerance)
    if fraction == 1:
        return 1.0, []
    lines = []
    if q.shape:
        off = int(np.sum(np.abs(np.asarray(value) - np.asarray(p.answer)) > q.tolerance))
        lines.append(
            f"{off} of your {np.size(value)} numbers {'is' if off == 1 else 'are'} further than "
            f"{q.tolerance:g} from the right value."
        )
    elif KINDS[q.kind].ndim == 0:
        lines.append(f"Your answer {value:g} is further than {q.tolerance:g} from the right value.")
    if q.kind == "multiple":
        right, wrong = len(value & p.answer), len(value - p.answer)
        lines.append(
            f"You selected {right} right and {wrong} wrong choice{'s' * (wrong != 1)}: "
            f"{fraction:.0%} of the points."
        )
    picked = {value} if q.kind == "single" else value if q.kind == "multiple" else set()
    for letter in sorted(picked):
        choice = p.choice(letter)
        if not choice.correct and choice.feedback:
            lines.append(choice.feedback)
    for trap in q.traps:  # their answers were parsed when the quiz loaded
        if KINDS[q.kind].score(value, trap.answer, q.tolerance) == 1:
            lines.append(trap.feedback)
    return fraction, [*lines, q.hint]


LINE_CHARS = 120


PLACEHOLDER = re.compile(r"\{(\w+)\}")


def question_line(q: Question) -> str:
    """The question as one line for a results row, after its id (what answers.yaml calls it): its
    text, each {input} written "…" (the numbers differ per student, and rows of one question must be
    one row in the class report); the row's output gives the student's own numbers."""
    text = " ".join(PLACEHOLDER.sub("…", q.text).split()).replace("….", "…")
    if len(text) <= LINE_CHARS:
        return text
    return text[: LINE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def _once(make):
    """make(), called at most once: its value is kept for the next call."""
    kept = []

    def once():
        if not kept:
            kept.append(make())
        return kept[0]

    return once


def _result(
    q: Question, number: int, max_score: float, pose, sheet: Sheet, course: Course
) -> TestResult:
    """The result of one question; `pose()` gives the student's Posed, drawn only when it is needed
    (to judge an answer or to reveal the right one, once for both): a question left blank needs none of it."""
    pose = _once(pose)
    outcome, fraction = Outcome.FAILED, 0.0
    if sheet.fatal:
        outcome, lines = (
            Outcome.NOT_SUBMITTED if sheet.missing else Outcome.UNGRADABLE,
            [sheet.fatal],
        )
    elif q.id in sheet.problems:
        lines = [f"{sheet.problems[q.id]}; this question scores 0.", q.hint]
    elif sheet.values.get(q.id) is None:
        lines = ["Not answered.", q.hint]
    else:
        fraction, lines = _judge(pose(), sheet.values[q.id])
        outcome = Outcome.PASSED if fraction == 1 else Outcome.FAILED
    lines += sheet.notes.get(q.id, [])
    if not sheet.fatal and PLACEHOLDER.search(q.text):  # the row's name has "…" for them
        lines.append(f"Your question, with your numbers: {' '.join(pose().text.split())}")
    if course.feedback.reveal_quiz_answers and outcome != Outcome.PASSED:
        lines.append(f"Right answer: {show_answer(pose())}")
    return TestResult(
        name=f"quiz {number}, {q.id}: {question_line(q)}",
        part="quiz",
        score=max_score * fraction,
        max_score=max_score,
        outcome=outcome,
        output=" ".join(lines),
        visibility=course.feedback.visibility,
    )


def grade_answers(
    course: Course,
    assignment: Assignment,
    student: str,
    answers_path: Path | Answers | None,
    reference,
    *,
    master: Quiz | None = None,
) -> list[TestResult]:
    """One TestResult per question (part "quiz"); never raises for anything in the answers file.

    A wrong form costs that question only; an unusable file (missing, too big, not UTF-8, not YAML,
    not a mapping) makes every question "ungradable" with the reason as its output.

    Args:
        course: the course.
        assignment: the assignment.
        student: the student, whose variant is graded.
        answers_path: the student's answers.yaml, or Answers already read from their notebook, or
            None when nothing was handed in.
        reference: the reference module, for computed answers.
        master: the quiz master, to skip reloading quiz.yaml.

    Returns:
        The quiz's results.

    Raises:
        QkvError: the quiz master is broken (the instructor's to fix).
    """
    quiz = master or load_quiz(course, assignment)
    every = variants(quiz, course, assignment, reference)
    sheet = read_answers(answers_path, quiz)
    return [
        _result(p.q, p.number, p.share, lambda p=p: p.pose(student), sheet, course)
        for p in every.questions
    ]
