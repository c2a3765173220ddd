"""`qkv quiz show` and `qkv quiz key`: one student's copy of the quiz, or its answer key."""

from __future__ import annotations

import argparse
from pathlib import Path

from qkv.cli.commands import options
from qkv.course import layout
from qkv.errors import QkvError


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("quiz", help="one student's copy of the quiz, or its answer key")
    quiz_sub = p.add_subparsers(dest="quiz_command", required=True)
    for name, func, text in (
        ("show", run_show, "print the student's own copy of the quiz (no answers)"),
        ("key", run_key, "print an answers.yaml that scores full marks for the student"),
    ):
        q = quiz_sub.add_parser(name, parents=[common], help=text)
        q.add_argument(
            "--student",
            required=True,
            metavar="ID",
            help="student id: their numbers and choice order",
        )
        if name == "show":
            q.add_argument(
                "--notebook",
                metavar="OUT.ipynb",
                help="write the student notebook with this student's copy in its quiz cell",
            )
        q.set_defaults(func=func)


def _variant(args: argparse.Namespace):
    from qkv.content import loader  # noqa: PLC0415 - loaded when the command runs
    from qkv.intake.submissions import is_valid_id  # noqa: PLC0415 - loaded when the command runs
    from qkv.quiz import grading as quiz  # noqa: PLC0415 - loaded when the command runs

    if not is_valid_id(args.student):
        raise QkvError(f"--student: '{args.student}' is not a usable student id ({layout.ID_RULE})")
    course = options.course(args)
    assignment = options.assignment(course, args)
    master = quiz.load_quiz(course, assignment)
    ref = loader.load(course, assignment).reference
    return master, quiz.variant(master, course, assignment, args.student, ref)


def run_show(args: argparse.Namespace) -> int:
    from qkv.quiz import render as quiz_render  # noqa: PLC0415 - loaded when the command runs

    master, posed = _variant(args)
    text = quiz_render.render_text(master, posed, args.student)
    if not getattr(args, "notebook", None):
        print(text, end="")
        return 0
    from qkv.release import notebook as notebook_build  # noqa: PLC0415 - loaded when the command runs
    from qkv.release import steps as release  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    assignment = options.assignment(course, args)
    released = release.build(course, assignment).get(layout.notebook_file(assignment))
    if released is None:
        raise QkvError(
            f"assignment '{assignment.id}' releases no notebook (set `notebook:` in course.yaml)"
        )
    Path(args.notebook).write_text(notebook_build.with_quiz_copy(released, text), encoding="utf-8")
    print(f"wrote {args.notebook}: the student notebook with {args.student}'s own copy of the quiz")
    return 0


def run_key(args: argparse.Namespace) -> int:
    from qkv.quiz import render as quiz_render  # noqa: PLC0415 - loaded when the command runs

    master, posed = _variant(args)
    print(quiz_render.answer_key(master, posed, args.student), end="")
    return 0
