"""Quizzes: each student's variant of the master, and grading answers.yaml into TestResults.

Each student gets their own numbers and their own choice order, drawn from the course seed, the
assignment, the student id and the question id; answers that depend on those numbers are computed
by the reference module. Choice letters are those of the student's own copy (a, b, c in the order
shown to them), so copying another student's letters scores nothing. The grader calls
grade_answers(); the CLI shows a copy (quiz_render) and checks the form of an answers file.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from autograder.content import loader
from autograder.grading import seeds
from autograder.course.config import Assignment, Course
from autograder.errors import QkvError
from autograder.quiz.answers import Answers, Sheet, read_answers
from autograder.quiz.kinds import KINDS, LETTERS
from autograder.quiz.master import (PLACEHOLDER, Choice, Computed, Draw, Question, Quiz, load_quiz,
                                    parse_quiz)
from autograder.grading.outcomes import Outcome
from autograder.grading.results import TestResult

__all__ = ["Answers", "Posed", "Question", "Quiz", "check_answers_file", "grade_answers", "load_quiz", "parse_quiz",
           "read_answers", "show_answer", "variant"]


@dataclass(frozen=True)
class Posed:
    """One question as one student gets it: their numbers, their choice order, their right answer."""

    question: Question
    number: int  # 1-based position in the quiz
    text: str
    choices: tuple[Choice, ...]  # in this student's order: the first is their a), the second b), ...
    answer: object  # canonical, as quiz_kinds.parse returns it, in this student's letters
    max_score: float

    def choice(self, letter: str) -> Choice:
        return self.choices[LETTERS.index(letter)]


# ---------------------------------------------------------------------------------------------
# One student's variant.

def format_numbers(values: np.ndarray, decimals: int | None = None) -> str:
    """[1.2, -0.5, 3.0] for the text; decimals=None writes each number as short as it goes."""
    def one(x: float) -> str:
        x += 0.0  # -0.0 becomes 0.0: a rounded draw would otherwise show "-0.0"
        return f"{x:.{decimals}f}" if decimals is not None else repr(x)
    if values.ndim == 2:
        return "[" + ", ".join(format_numbers(row, decimals) for row in values) + "]"
    return "[" + ", ".join(one(float(x)) for x in values) + "]"


def fill(text: str, shown: dict[str, str]) -> str:
    """Replace each {name} of the question text by shown[name]."""
    return PLACEHOLDER.sub(lambda m: shown.get(m.group(1), m.group(0)), text)


def _draw(d: Draw, rng: np.random.Generator) -> np.ndarray:
    raw = rng.uniform(d.low, d.high, size=d.draw)
    # rounded through the text the student reads, so the answer is computed from exactly those numbers
    return np.array([float(f"{x:.{d.decimals}f}") for x in raw.ravel()]).reshape(raw.shape)


def _compute(c: Computed, values: dict, reference, content) -> np.ndarray:
    if c.compute:
        names, function = content.quiz_compute[c.compute]
        result = np.asarray(function(reference, *(values[n] for n in names)), dtype=float)
    else:
        matrix, rows, cols = content.example_for(reference).matrices()[c.fixture]
        result = np.asarray(matrix, dtype=float)
        if c.row:
            result = result[list(rows).index(c.row)]
        if c.col:
            result = result[..., list(cols).index(c.col)]
    return result[c.pick] if c.pick is not None else result


def _nested(a: np.ndarray):
    return float(a) if a.ndim == 0 else tuple(_nested(x) for x in a)


def variant(quiz: Quiz, course: Course, assignment: Assignment, student: str, reference) -> list[Posed]:
    """Every question as this student gets it; the same student always gets the same variant."""
    total = sum(q.points for q in quiz.questions)
    content = loader.load(course, assignment)
    posed = []
    for number, q in enumerate(quiz.questions, 1):
        drawn = q.choices or any(isinstance(v, Draw) for v in (q.inputs or {}).values())
        rng = seeds.rng_for(course.seed, assignment.id, student, f"quiz:{q.id}") if drawn else None
        values = {n: _draw(v, rng) if isinstance(v, Draw) else v for n, v in (q.inputs or {}).items()}
        shown = {n: format_numbers(values[n], v.decimals if isinstance(v, Draw) else None)
                 for n, v in (q.inputs or {}).items()}
        choices = tuple(q.choices[i] for i in rng.permutation(len(q.choices))) if q.choices else ()
        right = frozenset(LETTERS[i] for i, c in enumerate(choices) if c.correct)
        answer = {"single": next(iter(right), None), "multiple": right}.get(q.kind, q.answer)
        if isinstance(answer, Computed):
            result = np.asarray(_compute(answer, values, reference, content), dtype=float)
            if result.shape != q.shape:
                raise QkvError(f"{quiz.source}: {q.id}: the reference gives shape {result.shape}, expected {q.shape}")
            answer = _nested(result)
        share = assignment.quiz_points * q.points / total if total else 0.0
        posed.append(Posed(q, number, fill(q.text, shown), choices, answer, share))
    return posed


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
        lines.append(f"{off} of your {np.size(value)} numbers {'is' if off == 1 else 'are'} further than "
                     f"{q.tolerance:g} from the right value.")
    elif KINDS[q.kind].ndim == 0:
        lines.append(f"Your answer {value:g} is further than {q.tolerance:g} from the right value.")
    if q.kind == "multiple":
        right, wrong = len(value & p.answer), len(value - p.answer)
        lines.append(f"You selected {right} right and {wrong} wrong choice{'s' * (wrong != 1)}: "
                     f"{fraction:.0%} of the points.")
    picked = {value} if q.kind == "single" else value if q.kind == "multiple" else set()
    for letter in sorted(picked):
        choice = p.choice(letter)
        if not choice.correct and choice.feedback:
            lines.append(choice.feedback)
    for trap in q.traps:  # their answers were parsed when the quiz loaded
        if KINDS[q.kind].score(value, trap.answer, q.tolerance) == 1:
            lines.append(trap.feedback)
    return fraction, lines + [q.hint]


def _result(p: Posed, sheet: Sheet, course: Course) -> TestResult:
    q = p.question
    outcome, fraction = Outcome.FAILED, 0.0
    if sheet.fatal:
        outcome, lines = Outcome.NOT_SUBMITTED if sheet.missing else Outcome.UNGRADABLE, [sheet.fatal]
    elif q.id in sheet.problems:
        lines = [f"{sheet.problems[q.id]}; this question scores 0.", q.hint]
    elif sheet.values.get(q.id) is None:
        lines = ["Not answered.", q.hint]
    else:
        fraction, lines = _judge(p, sheet.values[q.id])
        outcome = Outcome.PASSED if fraction == 1 else Outcome.FAILED
    lines += sheet.notes.get(q.id, [])
    if course.feedback.reveal_quiz_answers and outcome != Outcome.PASSED:
        lines.append(f"Right answer: {show_answer(p)}")
    return TestResult(name=f"quiz {p.number}: {q.id}", part="quiz", score=p.max_score * fraction,
                      max_score=p.max_score, outcome=outcome, output=" ".join(lines),
                      visibility=course.feedback.visibility)


def grade_answers(course: Course, assignment: Assignment, student: str, answers_path: Path | Answers | None,
                  reference, *, master: Quiz | None = None) -> list[TestResult]:
    """One TestResult per question (part "quiz"); never raises for anything in the answers file.

    `answers_path` is the student's answers.yaml, or Answers already read from their notebook.
    A wrong form costs that question only; an unusable file (missing, too big, not UTF-8, not YAML,
    not a mapping) makes every question "ungradable" with the reason as its output. A broken quiz
    master is the instructor's to fix and raises QkvError. Pass `master` to skip reloading quiz.yaml.
    """
    quiz = master or load_quiz(course, assignment)
    posed = variant(quiz, course, assignment, student, reference)
    sheet = read_answers(answers_path, quiz)
    return [_result(p, sheet, course) for p in posed]
