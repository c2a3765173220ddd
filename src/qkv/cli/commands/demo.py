"""`qkv demo`: make a synthetic class of each assignment and grade it end to end."""

from __future__ import annotations

import argparse
from pathlib import Path

from qkv.cli.commands import grade, options
from qkv.course import layout


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("demo", parents=[common], help="make a synthetic class and grade it")
    p.add_argument("--out", default="demo-out", metavar="DIR", help="where the class and grades go")
    p.add_argument(
        "--size", type=int, metavar="N", help="number of students (default: one of each kind)"
    )
    p.add_argument("--jobs", type=int, metavar="N", help="grading processes (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run, executor="local", scheduler=None)


def run(args: argparse.Namespace) -> int:
    from qkv.content import loader  # noqa: PLC0415 - loaded when the command runs
    from qkv.validate import synthetic  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    root, code = Path(args.out), 0
    for assignment in options.assignments(course, args):
        content = loader.load(course, assignment)
        out = root / assignment.id
        subs = out / "submissions"
        answers = synthetic.answers_for(course, assignment, content)
        students = synthetic.write_class(content, subs, args.size, answers=answers)
        print(f"wrote a synthetic class of {len(students)} submissions to {subs}/")
        # The kit's own code: grade with whatever sandbox this machine offers, and say so.
        grade_args = argparse.Namespace(**vars(args))
        grade_args.submissions, grade_args.out = str(subs), str(out / "graded")
        grade_args.force, grade_args.weak_sandbox = True, True
        grade_args.assignment = assignment.id
        code = max(code, grade.run(grade_args))
        print()
        print((out / "graded" / layout.GRADEBOOK_FILE).read_text(encoding="utf-8"))
    return code
