"""`qkv gradescope` and `qkv gradescope-run`: the autograder zip, and grading inside it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qkv.cli.commands import options
from qkv.course.config import course_file


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("gradescope", parents=[common], help="build the Gradescope autograder zip")
    p.add_argument(
        "--out",
        default="autograder.zip",
        metavar="ZIP",
        help="the zip to write (default: autograder.zip)",
    )
    p.set_defaults(func=run_build)

    p = sub.add_parser(
        "gradescope-run",
        parents=[common],
        help="grade the one submission inside Gradescope's container (run_autograder calls this)",
    )
    p.add_argument(
        "--root",
        metavar="DIR",
        help="Gradescope's folder (default: $QKV_GRADESCOPE_ROOT or /autograder)",
    )
    p.add_argument(
        "--weak-sandbox",
        action="store_true",
        help="grade even if the container lacks a sandbox layer",
    )
    p.set_defaults(func=run_inside)


def run_build(args: argparse.Namespace) -> int:
    from qkv.integrations import gradescope  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    path = gradescope.build_zip(
        course,
        course_file(args.course),
        assignment=options.assignment(course, args).id,
        out=Path(args.out),
    )
    print(f"wrote {path}: upload it as the assignment's autograder on Gradescope")
    return 0


def run_inside(args: argparse.Namespace) -> int:
    from qkv.integrations import gradescope  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    root = Path(args.root) if args.root else gradescope.default_root()
    data = gradescope.run(
        course,
        assignment=options.assignment(course, args).id,
        root=root,
        weak_sandbox=args.weak_sandbox,
    )
    extra = data["extra_data"]
    print(f"{extra['student']}: {data['score']:g} points; {data['output']}")
    print(f"isolation: {extra['isolation']}")
    for line in extra["grader_errors"]:
        print(f"qkv: grader error: {line}", file=sys.stderr)
    print(f"wrote {root / 'results' / 'results.json'} in {data['execution_time']:.1f} s")
    return 0
