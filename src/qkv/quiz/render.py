"""Showing a quiz: a student's own copy, the generic quiz.md, the blank answers.yaml and the key."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from qkv.quiz.grading import Posed, Question, Quiz, fill, format_numbers, show_answer
from qkv.quiz.kinds import KINDS, LETTERS, examples, form

WIDTH = 96
INDENT = " " * 3
KEY_HEADER = "# Answer key for student"  # check_no_secrets keeps it out of every release
CHECK_COMMAND = "qkv check answers.yaml"
SHOW_COMMAND = "qkv quiz show --student <id>"


def _points(x: float) -> str:
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return f"{text} point" + ("" if text == "1" else "s")


def _paragraphs(text: str, indent: str = "") -> list[str]:
    """Wrap each paragraph; keep indented lines (a table) as they are."""
    out = []
    for block in text.strip("\n").split("\n\n"):
        if block.startswith(" "):
            out.append(textwrap.indent(block, indent))
        else:
            out.append(
                textwrap.fill(
                    " ".join(block.split()), WIDTH, initial_indent=indent, subsequent_indent=indent
                )
            )
    return out


def _tolerance(q: Question) -> str:
    if KINDS[q.kind].ndim is None:
        return ""
    each = "" if not q.shape else " in every entry"
    return f"; within {q.tolerance:g} of the exact value{each} counts as right"


def _answer_line(q: Question) -> str:
    return f"Answer: {form(q.kind, q.letters, q.shape)}{_tolerance(q)}."


def render_text(quiz: Quiz, posed: list[Posed], student: str) -> str:
    """One student's own copy of the quiz, for the terminal: their numbers, their choice letters.

    Args:
        quiz: the quiz master.
        posed: the student's variant.
        student: the student, named in the header.

    Returns:
        The text.
    """
    total = sum(p.max_score for p in posed)
    lines = [
        quiz.title,
        f"Quiz for student {student}: {len(posed)} questions, {_points(total)}.",
        "",
    ]
    if quiz.intro:
        lines += ["\n\n".join(_paragraphs(quiz.intro)), ""]
    lines += _paragraphs(
        f"Write your answers in answers.yaml, after each question's id (e.g. {examples(quiz.questions, 1)}). "
        "Answer choice questions with the letters printed in this copy: they are yours, since every "
        f"student's copy orders the choices differently. Check the form of your file with `{CHECK_COMMAND}`."
    )
    for p in posed:
        q = p.question
        lines += ["", f"{p.number}. {q.id} ({KINDS[q.kind].label}, {_points(p.max_score)})"]
        lines += _paragraphs(p.text, INDENT)
        for letter, choice in zip(LETTERS, p.choices):
            lines.append(
                textwrap.fill(
                    choice.text,
                    WIDTH,
                    initial_indent=f"{INDENT}  {letter}) ",
                    subsequent_indent=INDENT + " " * 5,
                )
            )
        if KINDS[q.kind].rule:
            lines += _paragraphs(KINDS[q.kind].rule, INDENT)
        lines += _paragraphs(_answer_line(q), INDENT)
    return "\n".join(lines) + "\n"


def _inputs(q: Question) -> dict[str, Any]:
    """A question's numbers by name (none when it has no numbers)."""
    return q.inputs if isinstance(q.inputs, dict) else {}


def draws(quiz: Quiz) -> bool:
    """Whether some question of the quiz uses numbers drawn per student."""
    return any(not isinstance(v, np.ndarray) for q in quiz.questions for v in _inputs(q).values())


def render_markdown(quiz: Quiz, quiz_points: float) -> str:
    """The quiz as every student may read it (quiz.md): no answers, no student's numbers or letters."""
    total = sum(q.points for q in quiz.questions)
    lines = [f"# Quiz: {quiz.title}", ""]
    if quiz.intro:
        lines += ["\n\n".join(_paragraphs(quiz.intro)), ""]
    lines += _paragraphs(
        "**How to answer.** Fill in `answers.yaml`: every question id is already there, followed by "
        "the form its answer takes. Some questions use numbers drawn for you, and every student's "
        "copy orders the choices differently and letters them a, b, c in that order: answer from "
        "your own copy of the quiz (your instructor hands it out; with the course files, "
        f"`{SHOW_COMMAND}` prints it). Check the form of your answers with `{CHECK_COMMAND}`."
    )
    for number, q in enumerate(quiz.questions, 1):
        drawn = {n: f"[your {n}]" for n, v in _inputs(q).items() if not isinstance(v, np.ndarray)}
        fixed = {n: format_numbers(v) for n, v in _inputs(q).items() if isinstance(v, np.ndarray)}
        share = quiz_points * q.points / total if total else 0.0
        lines += ["", f"## {number}. {q.id} ({KINDS[q.kind].label}, {_points(share)})", ""]
        lines += _paragraphs(fill(q.text, {**drawn, **fixed}))
        if q.choices:
            # sorted by text: a neutral order that says nothing about which choices are right
            lines += [""] + [
                textwrap.fill(c.text, WIDTH, initial_indent="- ", subsequent_indent="  ")
                for c in sorted(q.choices, key=lambda c: c.text)
            ]
        notes = []
        if q.choices:
            notes.append("Your own copy letters these choices in its own order.")
        if drawn:
            notes.append(
                f"Your numbers are drawn for you: take them from your own copy (`{SHOW_COMMAND}`)."
            )
        if KINDS[q.kind].rule:
            notes.append(KINDS[q.kind].rule)
        lines += ["", *_paragraphs(" ".join([*notes, _answer_line(q)]))]
    return "\n".join(lines) + "\n"


def template(quiz: Quiz, *, check_command: str = CHECK_COMMAND) -> str:
    """The blank answers.yaml students fill in: every question id, no value, its form as a comment."""
    lines = [
        f"# Quiz answers: {quiz.title}",
        f"# Write each answer after its question id, e.g. {examples(quiz.questions)}.",
        "# Choice letters are those of your own copy of the quiz. Leave a line empty to skip a question.",
        f"# Check the form of this file with: {check_command}",
    ]
    for number, q in enumerate(quiz.questions, 1):
        lines += ["", f"# {number}. {form(q.kind, q.letters, q.shape)}", f"{q.id}:"]
    return "\n".join(lines) + "\n"


def _yaml_value(answer) -> str:
    if isinstance(answer, bool):
        return "true" if answer else "false"
    if isinstance(answer, frozenset):
        return "[" + ", ".join(sorted(answer)) + "]"
    if isinstance(answer, tuple):
        return "[" + ", ".join(_yaml_value(x) for x in answer) + "]"
    if isinstance(answer, str):
        return answer  # a letter
    return repr(answer)  # full precision, so the key is never off by rounding


def answer_key(quiz: Quiz, posed: list[Posed], student: str) -> str:
    """An answers.yaml that scores full marks for this student (their letters, their numbers).

    Args:
        quiz: the quiz master.
        posed: the student's variant.
        student: the student, named in the header.

    Returns:
        The file's text.
    """
    lines = [
        f"{KEY_HEADER} {student}: full marks. For instructors; never hand it out.",
        f"# Quiz: {quiz.title}",
    ]
    for p in posed:
        lines += [
            "",
            f"# {p.number}. {KINDS[p.question.kind].label}: {show_answer(p)}",
            f"{p.question.id}: {_yaml_value(p.answer)}",
        ]
    return "\n".join(lines) + "\n"
