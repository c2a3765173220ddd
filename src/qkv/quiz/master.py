"""The quiz master: a YAML file with the answers, validated on load like course.yaml.

Question kinds are in quiz_kinds.KINDS. Answers that depend on numbers are not written in the
master but computed by the reference ({compute: ...} over the question's inputs, with the functions
the assignment's content names in QUIZ_COMPUTE, or {fixture: ...} for a matrix of its worked
example), so a per-student variant can never disagree with the reference.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Literal, cast

import numpy as np

from qkv.content import loader
from qkv.course.config import Assignment, Course
from qkv.course.declared import build, describe, described  # quiz.yaml reads like course.yaml
from qkv.course.files import read_yaml
from qkv.errors import QkvError
from qkv.quiz.kinds import DEFAULT_TOLERANCE, KINDS, LETTERS, BadAnswer, parse

MAX_QUIZ_BYTES = 1_000_000
PLACEHOLDER = re.compile(r"\{(\w+)\}")
QUESTION_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
NDIM_WORDS = {0: "one number", 1: "a list of numbers", 2: "a list of rows of numbers"}


@dataclass(frozen=True)
class Choice:
    """One choice of a single or multiple choice question."""

    text: str = described("the choice as students read it")
    correct: bool = described("true for a right choice", False)
    feedback: str | None = described(
        "for a wrong choice: what picking it reveals, said when it is picked", None
    )


@dataclass(frozen=True)
class Draw:
    """Numbers drawn for each student."""

    draw: tuple[int, ...] = described(
        "shape of the numbers drawn: [3] for a list, [2, 3] for a matrix"
    )
    low: float = described("smallest value drawn")
    high: float = described("largest value drawn")
    decimals: int = described(
        "decimals each drawn value is rounded to (0 for whole numbers)", 1, minimum=0
    )


@dataclass(frozen=True)
class Computed:
    """An answer computed with the reference: a function of the inputs, or part of the example."""

    compute: str | None = described(
        "a computation the assignment's content names (QUIZ_COMPUTE), applied to "
        "the question's inputs",
        None,
    )
    fixture: str | None = described("a matrix of the assignment's worked example", None)
    row: str | None = described("that matrix's row with this label", None)
    col: str | None = described("that matrix's column with this label", None)
    pick: int | None = described("one entry (0-based) of a list result", None)


@dataclass(frozen=True)
class Trap:
    """A known wrong answer and what it reveals."""

    answer: object = described("the wrong answer, in the question's form")
    feedback: str = described("said when a student gives it")


@dataclass(frozen=True)
class Question:
    """One question of the master; `shape` and `letters` are derived when it loads."""

    id: str = described("stable id, the key in answers.yaml: lowercase letters, digits and dashes")
    # A Literal of the kinds' names, which loading checks; mypy takes no computed Literal.
    kind: Literal[tuple(KINDS)] = described(  # type: ignore[valid-type]
        "question kind: " + ", ".join(KINDS)
    )
    text: str = described("the question; {name} stands for the numbers of the input called name")
    hint: str = described(
        "feedback for a wrong or missing answer: it teaches without giving the answer away"
    )
    points: float = described(
        "weight: the question gets points / (sum of all points) of the quiz points", 1.0, minimum=0
    )
    choices: tuple[Choice, ...] = described(
        "the choices of a single or multiple question, right ones marked", ()
    )
    answer: object = described(
        "truefalse and numeric kinds: the answer, or {compute: ...} or {fixture: ...}", None
    )
    inputs: object = described(
        "numbers in the text: name -> a fixed list, or {draw: shape, low, high}", None
    )
    tolerance: float | None = described(
        f"numeric kinds: largest accepted error per number (default {DEFAULT_TOLERANCE})", None
    )
    traps: tuple[Trap, ...] = described(
        "numeric kinds: known wrong answers and what they reveal", ()
    )
    shape: tuple = field(default=(), metadata={"internal": True})
    letters: str = field(default="", metadata={"internal": True})


@dataclass(frozen=True)
class Quiz:
    """The quiz master of one assignment."""

    title: str = described("title shown above the quiz")
    questions: tuple[Question, ...] = described("the questions, in the order students see them")
    intro: str | None = described("text shown before the first question", None)
    source: str = field(default="quiz.yaml", metadata={"internal": True})


# ---------------------------------------------------------------------------------------------
# Loading and validating the master.


def load_quiz(course: Course, assignment: Assignment) -> Quiz:
    """Read and validate the assignment's quiz master; raises QkvError naming the path and value."""
    if not assignment.quiz:
        raise QkvError(f"course.yaml: assignment '{assignment.id}' has no quiz")

    data = read_yaml(course.path(assignment.quiz), name=assignment.quiz, limit=MAX_QUIZ_BYTES)
    return parse_quiz(data, name=assignment.quiz, content=loader.load(course, assignment))


def parse_quiz(data, *, name: str = "quiz.yaml", content=None) -> Quiz:
    """Validate already-parsed YAML data into a Quiz.

    Args:
        content: the assignment's content (qkv.content.loader.Content), which computed
            answers need; without it a {compute: ...} or {fixture: ...} answer is an error.
    """
    quiz = build(Quiz, data, f"{name}:")
    if not quiz.questions:
        raise QkvError(f"{name}: questions: needs at least one question")
    questions, seen = [], set()
    for i, q in enumerate(quiz.questions):
        where = f"{name}: questions[{i}]"
        if not QUESTION_ID.match(q.id):
            raise QkvError(
                f"{where}.id: use lowercase letters, digits and dashes, got {describe(q.id)}"
            )
        if q.id in seen:
            raise QkvError(f"{where}.id: duplicate id '{q.id}'")
        seen.add(q.id)
        questions.append(_check_question(q, where, content))
    return dataclasses.replace(quiz, questions=tuple(questions), source=name)


def _check_question(q: Question, where: str, content) -> Question:
    kind = KINDS[q.kind]
    numeric = kind.ndim is not None
    for key, allowed in (
        ("choices", kind.choices),
        ("inputs", numeric),
        ("tolerance", numeric),
        ("traps", numeric),
        ("answer", not kind.choices),
    ):
        if getattr(q, key) not in (None, ()) and not allowed:
            raise QkvError(f"{where}.{key}: not used by a {q.kind} question")
    if kind.choices:
        return _check_choices(q, where)
    if q.answer is None:
        raise QkvError(f"{where}.answer: missing (required for a {q.kind} question)")
    if not numeric:
        return dataclasses.replace(q, answer=_parse_literal(q, q.answer, (), f"{where}.answer"))
    inputs = _check_inputs(q, where)
    if isinstance(q.answer, dict):
        answer = build(Computed, q.answer, f"{where}.answer")
        shape = _computed_shape(answer, inputs, f"{where}.answer", content)
    elif any(isinstance(v, Draw) for v in inputs.values()):
        raise QkvError(
            f"{where}.answer: the numbers are drawn per student, so compute the answer ({{compute: ...}})"
        )
    else:
        shape = _literal_shape(q.answer)
        answer = _parse_literal(q, q.answer, shape, f"{where}.answer")
    assert kind.ndim is not None, "only kinds answered with numbers have literal answers"
    if len(shape) != kind.ndim:
        raise QkvError(
            f"{where}.answer: a {q.kind} question needs {NDIM_WORDS[kind.ndim]}, "
            f"got one of shape {shape}"
        )
    if q.tolerance is not None and q.tolerance < 0:
        raise QkvError(f"{where}.tolerance: must be at least 0, got {q.tolerance}")
    traps = tuple(
        Trap(_parse_literal(q, t.answer, shape, f"{where}.traps[{j}].answer"), t.feedback)
        for j, t in enumerate(q.traps)
    )
    tolerance = DEFAULT_TOLERANCE if q.tolerance is None else q.tolerance
    return dataclasses.replace(
        q, answer=answer, inputs=inputs, tolerance=tolerance, shape=shape, traps=traps
    )


def _literal_shape(value) -> tuple:
    """The shape a written answer claims: parse() then checks that every row has it."""
    if not isinstance(value, list):
        return ()
    return (len(value), len(value[0])) if value and isinstance(value[0], list) else (len(value),)


def _parse_literal(q: Question, value, shape: tuple, where: str):
    try:
        parsed = parse(q.kind, value, q.letters, shape)
    except BadAnswer as e:
        raise QkvError(f"{where}: {e}") from None
    if parsed is None:
        raise QkvError(f"{where}: empty")
    return parsed


def _check_choices(q: Question, where: str) -> Question:
    if not 2 <= len(q.choices) <= len(LETTERS):
        raise QkvError(f"{where}.choices: needs 2 to {len(LETTERS)} choices, got {len(q.choices)}")
    right = sum(c.correct for c in q.choices)
    if q.kind == "single" and right != 1:
        raise QkvError(
            f"{where}.choices: a single choice question needs exactly one correct choice, got {right}"
        )
    if not right:
        raise QkvError(f"{where}.choices: no choice is marked correct")
    for j, c in enumerate(q.choices):
        if c.correct and c.feedback:
            raise QkvError(f"{where}.choices[{j}].feedback: only wrong choices get feedback")
    return dataclasses.replace(
        q, letters=LETTERS[: len(q.choices)]
    )  # the answer depends on the student's order


def checked_inputs(q: Question) -> dict[str, np.ndarray | Draw]:
    """A loaded question's inputs: its arrays and draws by name (its field holds YAML until then)."""
    return cast("dict[str, np.ndarray | Draw]", q.inputs or {})


def _check_inputs(q: Question, where: str) -> dict[str, np.ndarray | Draw]:
    if q.inputs is not None and not isinstance(q.inputs, dict):
        raise QkvError(
            f"{where}.inputs: expected a mapping of names to numbers, got {describe(q.inputs)}"
        )
    inputs: dict[str, np.ndarray | Draw] = {}
    for name, value in (q.inputs or {}).items():
        sub = f"{where}.inputs.{name}"
        if isinstance(value, dict):
            draw = build(Draw, value, sub)
            if not 1 <= len(draw.draw) <= 2 or min(draw.draw) < 1 or draw.low > draw.high:
                raise QkvError(
                    f"{sub}: draw needs a shape of 1 or 2 positive sizes and low <= high"
                )
            inputs[name] = draw
        else:
            try:
                array = np.array(value, dtype=float)
            except (TypeError, ValueError):
                array = np.array([np.nan])
            if (
                not isinstance(value, list)
                or array.ndim not in (1, 2)
                or not np.all(np.isfinite(array))
            ):
                raise QkvError(
                    f"{sub}: expected a list of numbers, a list of rows or a draw, got {describe(value)}"
                )
            inputs[name] = array
    used = set(PLACEHOLDER.findall(q.text))
    if used - set(inputs):
        raise QkvError(f"{where}.text: {{{sorted(used - set(inputs))[0]}}} names no input")
    hidden = [n for n, v in inputs.items() if isinstance(v, Draw) and n not in used]
    if hidden:
        raise QkvError(f"{where}.inputs.{hidden[0]}: drawn but never shown in the text")
    return inputs


def _computed_shape(c: Computed, inputs: dict, where: str, content) -> tuple:
    if (c.compute is None) == (c.fixture is None):
        raise QkvError(f"{where}: give exactly one of compute or fixture")
    if content is None:
        raise QkvError(f"{where}: a computed answer needs the assignment's content")
    if c.compute:
        table = content.quiz_compute
        if c.compute not in table:
            raise QkvError(
                f"{where}.compute: unknown computation '{c.compute}'"
                + (
                    f" (known: {', '.join(sorted(table))})"
                    if table
                    else " (the content names none)"
                )
            )
        names, function = table[c.compute]
        missing = [n for n in names if n not in inputs]
        if missing:
            raise QkvError(f"{where}.compute: {c.compute} needs the input '{missing[0]}'")
        probes = [np.ones(v.draw) if isinstance(v, Draw) else v for v in (inputs[n] for n in names)]
        try:
            with np.errstate(all="ignore"):
                shape = np.shape(function(content.reference, *probes))
        except Exception as e:  # the inputs do not fit the computation: an instructor's mistake
            raise QkvError(
                f"{where}.compute: {c.compute} fails on inputs of these shapes "
                f"({type(e).__name__}: {e})"
            ) from None
    else:
        matrices = content.example.matrices()
        if c.fixture not in matrices:
            raise QkvError(
                f"{where}.fixture: unknown matrix '{c.fixture}' (known: {', '.join(matrices)})"
            )
        _values, rows, cols = matrices[c.fixture]
        for key, labels in (("row", rows), ("col", cols)):
            chosen = getattr(c, key)
            if chosen is not None and chosen not in labels:
                raise QkvError(f"{where}.{key}: '{chosen}' is not one of {', '.join(labels)}")
        shape = tuple(n for n, chosen in ((len(rows), c.row), (len(cols), c.col)) if chosen is None)
    if c.pick is not None:
        if len(shape) != 1 or not 0 <= c.pick < shape[0]:
            raise QkvError(
                f"{where}.pick: {c.pick} is not an index of a list of {shape[0] if shape else 0}"
            )
        shape = ()
    return tuple(shape)


def feedback_texts(quiz: Quiz) -> set[str]:
    """The sentences students may only see after grading: hints and why a choice or number is wrong."""
    texts = {q.hint for q in quiz.questions}
    texts |= {c.feedback for q in quiz.questions for c in q.choices if c.feedback}
    texts |= {t.feedback for q in quiz.questions for t in q.traps}
    return {" ".join(t.split()) for t in texts}
