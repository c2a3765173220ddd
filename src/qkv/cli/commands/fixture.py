"""`qkv fixture`: print the assignment's worked example."""

from __future__ import annotations

import argparse
import json

from qkv.cli.commands import options


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("fixture", parents=[common], help="print the assignment's worked example")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qkv.content import loader  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    example = loader.load(course, options.assignment(course, args)).example
    print(json.dumps(example.as_json()) if args.json else example.render())
    return 0
