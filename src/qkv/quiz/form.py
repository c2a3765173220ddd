"""The form of a quiz without its content: question ids, kinds, how many choices, answer shapes.

`qkv release` writes it beside the student's answers.yaml (quiz_form.json) so that
`qkv check answers.yaml` can check the form of the answers with no course at hand. It holds no
question text, no choice text and no answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from qkv.errors import QkvError
from qkv.quiz.kinds import KINDS, LETTERS


@dataclass(frozen=True)
class FormQuestion:
    """What reading an answer needs of a question (quiz.answers.read_answers asks no more)."""

    id: str
    kind: str
    letters: str = ""
    shape: tuple = ()


@dataclass(frozen=True)
class QuizForm:
    questions: tuple[FormQuestion, ...]


def dumps(quiz) -> str:
    """The form of a quiz master, as JSON text."""
    questions = [
        {"id": q.id, "kind": q.kind, "choices": len(q.letters), "shape": list(q.shape)}
        for q in quiz.questions
    ]
    return json.dumps({"questions": questions}, indent=1) + "\n"


def loads(text: str, *, name: str) -> QuizForm:
    """A quiz form from its JSON text; a damaged file is one QkvError naming it."""
    try:
        questions = tuple(
            FormQuestion(
                str(q["id"]),
                q["kind"],
                LETTERS[: int(q["choices"])],
                tuple(int(n) for n in q["shape"]),
            )
            for q in json.loads(text)["questions"]
        )
    except (ValueError, KeyError, TypeError) as e:
        raise QkvError(
            f"{name}: not a quiz form written by `qkv release` ({type(e).__name__})"
        ) from None
    unknown = [q.kind for q in questions if q.kind not in KINDS]
    if unknown:
        raise QkvError(f"{name}: unknown question kind '{unknown[0]}'")
    return QuizForm(questions)
