"""Each student's variant of the quiz master: their numbers, their choice order, their right answers.

Each student gets their own numbers and their own choice order, drawn from the course seed, the
assignment, the student id and the question id; answers that depend on those numbers are computed
by the reference module. Most of a question is the same for every student (its text around the
drawn numbers, its fixed inputs, an answer read off the worked example, its share of the points),
so `Variants` works that out once per quiz, and a student's variant only draws and computes what
is theirs. A question is posed on its own (its draws come from its own generator), so grading can
pose only the questions it needs and still give each the numbers the whole variant would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from qkv.content import loader
from qkv.course import seeds
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.quiz.kinds import LETTERS
from qkv.quiz.master import (
    PLACEHOLDER,
    Choice,
    Computed,
    Draw,
    Question,
    Quiz,
    checked_inputs,
)


@dataclass(frozen=True)
class Posed:
    """One question as one student gets it: their numbers, their choice order, their right answer."""

    question: Question
    number: int  # 1-based position in the quiz
    text: str
    choices: tuple[
        Choice, ...
    ]  # in this student's order: the first is their a), the second b), ...
    answer: Any  # canonical, as quiz_kinds.parse returns it (its form is the kind's), in this student's letters
    max_score: float

    def choice(self, letter: str) -> Choice:
        return self.choices[LETTERS.index(letter)]


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


def _nested(a: np.ndarray):
    return float(a) if a.ndim == 0 else tuple(_nested(x) for x in a)


class _Prepared:
    """What one question is for every student, and how to pose it for one student."""

    def __init__(self, q: Question, number: int, share: float, variants: Variants):
        self.q, self.number, self.share, self.variants = q, number, share, variants
        inputs = checked_inputs(q)
        self.draws = {n: v for n, v in inputs.items() if isinstance(v, Draw)}
        self.label = f"quiz:{q.id}"
        # the text with the fixed inputs written in; {name} of a drawn input stays, for fill()
        fixed = {n: format_numbers(v) for n, v in inputs.items() if not isinstance(v, Draw)}
        self.text = fill(q.text, fixed)
        self.fixed_values = {n: v for n, v in inputs.items() if not isinstance(v, Draw)}
        self.same = None  # the Posed every student gets, when nothing in it is drawn
        if not self.draws and not q.choices:
            self.same = self._posed(self.text, (), self._answer(q.answer, self.fixed_values))

    def _answer(self, answer, values: dict):
        if not isinstance(answer, Computed):
            return answer
        result = np.asarray(self.variants.compute(answer, values), dtype=float)
        if result.shape != self.q.shape:
            raise QkvError(
                f"{self.variants.quiz.source}: {self.q.id}: the reference gives shape {result.shape}, "
                f"expected {self.q.shape}"
            )
        return _nested(result)

    def _posed(self, text: str, choices: tuple, answer) -> Posed:
        return Posed(self.q, self.number, text, choices, answer, self.share)

    def pose(self, student: str) -> Posed:
        if self.same is not None:
            return self.same
        v, q = self.variants, self.q
        rng = seeds.rng_for(v.course.seed, v.assignment.id, student, self.label)
        if q.choices:  # choice questions have no inputs: the order is all that is drawn
            choices = tuple(q.choices[i] for i in rng.permutation(len(q.choices)))
            right = frozenset(LETTERS[i] for i, c in enumerate(choices) if c.correct)
            answer = (
                next(iter(right), None)
                if q.kind == "single"
                else right
                if q.kind == "multiple"
                else q.answer
            )
            return self._posed(self.text, choices, answer)
        drawn = {
            n: _draw(d, rng) for n, d in self.draws.items()
        }  # in the master's order: one stream
        text = fill(
            self.text, {n: format_numbers(drawn[n], d.decimals) for n, d in self.draws.items()}
        )
        return self._posed(text, (), self._answer(q.answer, {**self.fixed_values, **drawn}))


class Variants:
    """The variants of one quiz: what is the same for every student worked out once (see the module)."""

    def __init__(self, quiz: Quiz, course: Course, assignment: Assignment, reference):
        self.quiz, self.course, self.assignment, self.reference = (
            quiz,
            course,
            assignment,
            reference,
        )
        self.content = loader.load(course, assignment)
        total = sum(q.points for q in quiz.questions)
        self.questions = [
            _Prepared(q, number, assignment.quiz_points * q.points / total if total else 0.0, self)
            for number, q in enumerate(quiz.questions, 1)
        ]

    def compute(self, c: Computed, values: dict) -> np.ndarray:
        """A computed answer: the content's computation over the inputs, or part of the worked example."""
        if c.compute:
            names, function = self.content.quiz_compute[c.compute]
            result = np.asarray(function(self.reference, *(values[n] for n in names)), dtype=float)
        else:
            matrix, rows, cols = self.content.example_for(self.reference).matrices()[c.fixture]
            result = np.asarray(matrix, dtype=float)
            if c.row:
                result = result[list(rows).index(c.row)]
            if c.col:
                result = result[..., list(cols).index(c.col)]
        return result[c.pick] if c.pick is not None else result

    def of(self, student: str) -> list[Posed]:
        return [p.pose(student) for p in self.questions]


_last: list = []  # [(quiz, course, assignment, reference), Variants]: a grading process asks for one quiz


def variants(quiz: Quiz, course: Course, assignment: Assignment, reference) -> Variants:
    """The Variants of this quiz, kept while the same quiz, course, assignment and reference are asked for.

    Args:
        quiz: the quiz master.
        course: the course, for its seed.
        assignment: the assignment the quiz belongs to.
        reference: the reference module, for computed answers.
    """
    key = (quiz, course, assignment, reference)
    if not _last or any(a is not b for a, b in zip(_last[0], key)):
        _last[:] = [key, Variants(quiz, course, assignment, reference)]
    return _last[1]


def variant(
    quiz: Quiz, course: Course, assignment: Assignment, student: str, reference
) -> list[Posed]:
    """Every question as this student gets it; the same student always gets the same variant.

    Args:
        quiz: the quiz master.
        course: the course, for its seed.
        assignment: the assignment.
        student: the student.
        reference: the reference module, for computed answers.

    Returns:
        The posed questions, in order.
    """
    return variants(quiz, course, assignment, reference).of(student)
