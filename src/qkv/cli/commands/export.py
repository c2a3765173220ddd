"""`qkv export`: grades for an LMS, nbgrader or a course table, from graded folders."""

from __future__ import annotations

import argparse
from pathlib import Path

from qkv.cli.commands import options


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "export",
        parents=[common],
        help="grades for an LMS (Canvas, Moodle), nbgrader or a course table",
    )
    p.add_argument(
        "format",
        choices=["canvas", "moodle", "nbgrader", "course"],
        help="canvas: gradebook import; moodle: grade import; nbgrader: its export columns; "
        "course: a column per assignment",
    )
    p.add_argument(
        "--graded",
        required=True,
        action="append",
        metavar="DIR",
        help="a folder `qkv grade` wrote (repeat for more assignments)",
    )
    p.add_argument("--out", required=True, metavar="FILE", help="the CSV to write")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qkv.integrations import lms  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    path = lms.export(
        course, args.format, graded=[Path(g) for g in args.graded], out=Path(args.out)
    )
    print(f"wrote {path}")
    return 0
