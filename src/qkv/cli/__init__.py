"""`qkv`: a thin command line over the library; it parses, calls and prints.

Each command group is a module of qkv.cli.commands with `add_parser(sub, common)`, which adds its
subcommands and sets `func` to the function that runs them; adding a group is adding its module to
COMMANDS.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from qkv import __version__
from qkv.cli.commands import (
    check,
    demo,
    export,
    fixture,
    grade,
    gradescope,
    nbgrader,
    new_assignment,
    quiz,
    release,
    serve,
    submit,
    validate,
)
from qkv.errors import QkvError

# In the order `qkv --help` lists them.
COMMANDS = (
    fixture,
    release,
    check,
    grade,
    gradescope,
    export,
    validate,
    demo,
    quiz,
    nbgrader,
    serve,
    submit,
    new_assignment,
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (the docs site's CLI reference is generated from it)."""
    parser = argparse.ArgumentParser(
        prog="qkv", description="Attention exercises: release, check, grade."
    )
    parser.add_argument("--version", action="version", version=f"qkv-kit {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--course", metavar="PATH", help="course.yaml or its folder (default: ./course.yaml)"
    )
    common.add_argument(
        "--assignment",
        metavar="ID",
        help="assignment id (default: the course's first; release and demo: every assignment)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a QkvError is one line on stderr and exit code 2, never a traceback."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except QkvError as e:
        print(f"qkv: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("qkv: interrupted", file=sys.stderr)
        return 130
