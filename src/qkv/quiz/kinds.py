"""The quiz's question kinds in one table: what an answer looks like, how it is read and scored.

Answers come from two places: the quiz master (trusted, checked when it loads) and a student's
answers.yaml (untrusted). Both are read by the same `parse` of the kind, so the master cannot hold
an answer that a student could not write.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

LETTERS = string.ascii_lowercase[:10]  # choice letters: the i-th choice of the master is LETTERS[i]
DEFAULT_TOLERANCE = (
    0.005  # half a unit in the second decimal: an answer rounded to 2 decimals passes
)
_SLACK = 1e-9  # so that an answer exactly at the tolerance passes despite float rounding
# YAML 1.1 reads 4.8e-1 (no dot) as a string; accept written numbers like it, and nothing else.
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_FRACTION = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))\s*/\s*(\d+\.?\d*|\.\d+)$")  # 1/4, 0.9/2
_PERCENT = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))\s*%$")  # 25%
_SEPARATORS = re.compile(
    r"\s*(?:,|;|&|\band\b|\s)\s*"
)  # between letters or numbers written in one line: b, c and d
_TRUE, _FALSE = (
    frozenset({"true", "t", "yes", "y"}),
    frozenset({"false", "f", "no", "n"}),
)  # quoted, or "True."

MULTIPLE_RULE = (
    "Scoring: with k right choices, each right choice you select earns +1/k of the points, "
    "each wrong one you select costs 1/k, and the total never goes below 0."
)


class BadAnswer(ValueError):
    """An answer of the wrong form; the message says what was expected and what was found."""


def what(value) -> str:
    """A short description of an untrusted value.

    Never a full repr: a small YAML file can hold a list that aliases itself into billions of items.
    """
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) > 1e15:
        return "a very large number"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 40 else text[:36] + "...'"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def is_blank(value) -> bool:
    """An unanswered question: nothing, an empty string or an empty list."""
    return value is None or value == "" or value == []


_CHOICE_LINE = re.compile(
    r"^\(?([a-jA-J])[).:]\s+\S"
)  # a choice copied whole from the quiz: "c) It describes ..."


def _letter(value, letters: str) -> str:
    """One choice's letter, as written or as a list marks it: b, B, (b), b) or b., or the choice's line
    copied from the quiz ("b) It describes ...")."""
    if isinstance(value, str):
        letter = value.strip().lower().removeprefix("(").rstrip(").:").strip()
        if len(letter) == 1 and letter in letters:
            return letter
        copied = _CHOICE_LINE.match(value.strip())
        if copied and copied[1].lower() in letters:
            return copied[1].lower()
    raise BadAnswer(f"expected one letter of {', '.join(letters)}, got {what(value)}")


def parse_single(value, letters: str, shape: tuple) -> str:
    """One choice's letter (see _letter).

    Args:
        value: the answer as written, from answers.yaml or the quiz master.
        letters: the question's choice letters, "abcd" for four choices.
        shape: unused: every kind's parse takes the same arguments.
    """
    return _letter(value, letters)


def _items(text: str) -> list[str]:
    """The items of a list written in one line, without brackets or with them: "b, c and d", "[0.5 0.5]"."""
    text = text.strip()
    if text[:1] + text[-1:] in ("[]", "()", "{}"):
        text = text[1:-1]
    return [item for item in _SEPARATORS.split(text.strip()) if item]


def parse_multiple(value, letters: str, shape: tuple) -> frozenset:
    """The letters chosen, each once: a list, or one line such as "a, c and d".

    Args:
        value: the answer as written, from answers.yaml or the quiz master.
        letters: the question's choice letters, "abcd" for four choices.
        shape: unused: every kind's parse takes the same arguments.
    """
    items = _items(value) if isinstance(value, str) else value
    if not isinstance(items, list):
        raise BadAnswer(f"expected a list of letters like [a, c], got {what(value)}")
    chosen = [_letter(item, letters) for item in items]
    if len(set(chosen)) != len(chosen):
        raise BadAnswer("the same letter is listed twice")
    return frozenset(chosen)


def parse_truefalse(value, letters: str, shape: tuple) -> bool:
    """True or false, as YAML reads it or as a word such as "true", "T", "yes" or "No."

    Args:
        value: the answer as written, from answers.yaml or the quiz master.
        letters: unused: every kind's parse takes the same arguments.
        shape: unused, as letters.
    """
    if isinstance(value, str):  # "true" in quotes, True., T
        word = value.strip().lower().rstrip(".!")
        value = True if word in _TRUE else False if word in _FALSE else value
    if not isinstance(value, bool):
        raise BadAnswer(f"expected true or false, got {what(value)}")
    return value


def parse_number(value, letters: str = "", shape: tuple = ()) -> float:
    """A number as written: 0.25, .25, 2.5e-1, and the forms a hand gives it, 1/4 or 25%.

    Args:
        value: the answer as written, or one entry of a list or row of numbers.
        letters: unused: every kind's parse takes the same arguments.
        shape: unused, as letters.
    """
    if isinstance(value, str):
        text = value.strip()
        if _NUMBER.match(text):
            value = float(text)
        elif (fraction := _FRACTION.match(text)) and float(fraction[2]) != 0:
            value = float(fraction[1]) / float(fraction[2])
        elif percent := _PERCENT.match(text):
            value = float(percent[1]) / 100
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadAnswer(f"expected a number like 0.25, got {what(value)}")
    if (isinstance(value, int) and abs(value) > 1e300) or not math.isfinite(value):
        raise BadAnswer(f"expected a finite number, got {what(value)}")
    return float(value)


def parse_array(value, letters: str, shape: tuple) -> tuple:
    """A list of numbers (shape (n,)) or a list of rows (shape (r, c)), as nested tuples; a list of
    numbers may be written in one line, "0.5, 0.5" or "[0.5 0.5]".

    Args:
        value: the answer as written, or one row of it.
        letters: unused, passed on to each row.
        shape: the numbers' shape the question asks for, (n,) or (rows, cols).
    """
    if len(shape) == 1:
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            value = value[0]  # YAML reads numpy's "[0.5 0.5]" as a list holding "0.5 0.5"
        if isinstance(value, str):
            value = _items(value)
        if not isinstance(value, list) or len(value) != shape[0]:
            raise BadAnswer(f"expected a list of {shape[0]} numbers, got {what(value)}")
        try:
            return tuple(parse_number(x) for x in value)
        except BadAnswer as e:
            raise BadAnswer(f"{e} in the list") from None
    if isinstance(
        value, str
    ):  # written as numbers, row after row: "0.5 0.5; 0.1 0.9", or one row a line
        items = _items(value.replace("[", " ").replace("]", " "))
        if len(items) == shape[0] * shape[1]:
            value = [items[i * shape[1] : (i + 1) * shape[1]] for i in range(shape[0])]
    if not isinstance(value, list) or len(value) != shape[0]:
        raise BadAnswer(
            f"expected a list of {shape[0]} rows of {shape[1]} numbers, got {what(value)}"
        )
    rows = []
    for i, row in enumerate(value):
        try:
            rows.append(parse_array(row, letters, shape[1:]))
        except BadAnswer as e:
            raise BadAnswer(f"row {i + 1}: {e}") from None
    return tuple(rows)


def score_equal(value, answer, tolerance: float) -> float:
    """All the points for the right answer, none for any other.

    Args:
        value: the student's answer, as the kind's parse returned it.
        answer: the right answer, in the same form and in this student's letters.
        tolerance: unused: every kind's score takes the same arguments.
    """
    return float(value == answer)


def score_multiple(value: frozenset, answer: frozenset, tolerance: float) -> float:
    """+1/k per right choice selected, -1/k per wrong one, floor 0 (MULTIPLE_RULE).

    Args:
        value: the letters the student chose.
        answer: the right letters, k of them, in this student's letters.
        tolerance: unused: every kind's score takes the same arguments.
    """
    return max(0.0, (len(value & answer) - len(value - answer)) / len(answer))


def score_close(value, answer, tolerance: float) -> float:
    """All the points when every number is within `tolerance` of the right one, else none.

    Args:
        value: the student's number, or nested tuples of numbers, as parse_array returns them.
        answer: the right number or numbers, of the same shape.
        tolerance: the largest absolute difference allowed per number (the question's tolerance).
    """
    return float(bool(np.all(np.abs(np.asarray(value) - np.asarray(answer)) <= tolerance + _SLACK)))


@dataclass(frozen=True)
class Kind:
    """How one kind of question is shown, answered and scored."""

    label: str  # shown next to the question
    form: str  # what an answer looks like; {n}, {rows}, {cols} and {letters} are filled in
    parse: Callable  # (value, letters, shape) -> canonical answer, or raises BadAnswer
    score: Callable  # (answer given, right answer, tolerance) -> fraction of the points, 0..1
    choices: bool = False  # answered with choice letters
    ndim: int | None = None  # answered with numbers: 0 a number, 1 a list, 2 a matrix
    rule: str = ""  # scoring rule stated with the question when it is not all-or-nothing


KINDS = {
    "single": Kind(
        "single choice", "one letter ({letters})", parse_single, score_equal, choices=True
    ),
    "multiple": Kind(
        "select all that apply",
        "a list of all the right letters ({letters}), e.g. [a, c]",
        parse_multiple,
        score_multiple,
        choices=True,
        rule=MULTIPLE_RULE,
    ),
    "truefalse": Kind("true or false", "true or false", parse_truefalse, score_equal),
    "numeric": Kind("number", "a number, e.g. 0.25", parse_number, score_close, ndim=0),
    "vector": Kind(
        "list of numbers", "a list of {n} numbers, e.g. {example}", parse_array, score_close, ndim=1
    ),
    "matrix": Kind(
        "matrix",
        "a list of {n} rows of {cols} numbers each, e.g. {example}",
        parse_array,
        score_close,
        ndim=2,
    ),
}


def form(kind: str, letters: str, shape: tuple) -> str:
    """The expected form of an answer, in words, with an example of the right shape.

    Args:
        kind: the question's kind (a key of KINDS).
        letters: its choice letters, for a choice question.
        shape: the shape of its numbers, () for one number.
    """
    example = np.arange(1, int(np.prod(shape)) + 1).reshape(shape) / 10 if shape else None
    return KINDS[kind].form.format(
        letters=", ".join(letters),
        n=shape[0] if shape else 0,
        cols=shape[-1] if shape else 0,
        example=_brackets(example),
    )


def example_answer(kind: str, letters: str, shape: tuple) -> str:
    """An answer of the right form for a question (not its answer): what answers.yaml would hold.

    Args:
        kind: the question's kind (a key of KINDS).
        letters: its choice letters, for a choice question.
        shape: the shape of its numbers, () for one number.
    """
    if kind == "single":
        return letters[:1] or "a"
    if kind == "multiple":
        return f"[{letters[0]}, {letters[2] if len(letters) > 2 else letters[-1]}]"
    if kind == "truefalse":
        return "true"
    if not shape:
        return "0.25"
    return _brackets(np.arange(1, int(np.prod(shape)) + 1).reshape(shape) / 10)


def examples(questions, most: int = 2) -> str:
    """ "`id: answer`" for a quiz's first questions of different kinds, joined by "or": examples of
    answers.yaml in the quiz's own words."""
    shown: list[str] = []
    kinds: set[str] = set()
    for q in questions:  # (not true or false: an example there could read as the answer)
        if q.kind not in kinds and q.kind != "truefalse" and len(shown) < most:
            kinds.add(q.kind)
            shown.append(f"`{q.id}: {example_answer(q.kind, q.letters, q.shape)}`")
    return " or ".join(shown) or "`question-id: answer`"


def _brackets(a) -> str:
    if a is None:
        return ""
    if a.ndim == 1:
        return "[" + ", ".join(f"{x:g}" for x in a) + "]"
    return "[" + ", ".join(_brackets(row) for row in a) + "]"


def parse(kind: str, value, letters: str, shape: tuple):
    """The canonical answer, None when unanswered; raises BadAnswer for a wrong form.

    Args:
        kind: the question's kind (a key of KINDS).
        value: the answer as written: a value of answers.yaml, or of the quiz master.
        letters: the question's choice letters, for a choice question.
        shape: the shape of its numbers, () for one number.
    """
    if is_blank(value):
        return None
    return KINDS[kind].parse(value, letters, shape)
