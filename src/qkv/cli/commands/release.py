"""`qkv release`: regenerate the student release and bundle of each assignment."""

from __future__ import annotations

import argparse
from pathlib import Path

from qkv.cli.commands import options
from qkv.course import layout
from qkv.errors import QkvError


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "release", parents=[common], help="regenerate exercises/ and the student bundle"
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="release folder (default: exercises/<assignment>/ next to course.yaml)",
    )
    p.add_argument(
        "--bundle", metavar="ZIP", help="student bundle (default: dist/<assignment>-student.zip)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qkv.release import steps as release  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    chosen = options.assignments(course, args)
    if len(chosen) > 1 and (args.out or args.bundle):
        raise QkvError("--out and --bundle name one assignment's release: add --assignment ID")
    for assignment in chosen:
        out = Path(args.out) if args.out else layout.release_dir(course, assignment)
        bundle = Path(args.bundle) if args.bundle else layout.bundle_path(course, assignment)
        for path in release.write(course, assignment, out=out, bundle=bundle):
            print(f"wrote {path}")
    return 0
