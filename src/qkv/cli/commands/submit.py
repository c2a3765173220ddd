"""`qkv submit FILE... --server URL --token TOKEN`: hand in to a `qkv serve`, print the score."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("submit", help="hand in to a qkv serve and print the score")
    p.add_argument("files", nargs="+", metavar="FILE", help="attention.py and answers.yaml, or ...")
    p.add_argument("--server", required=True, metavar="URL", help="the service's address")
    p.add_argument("--token", required=True, metavar="TOKEN", help="your sign-in token")
    p.add_argument("--assignment", metavar="ID", help="assignment id (default: from the file)")
    p.add_argument(
        "--no-wait", dest="wait", action="store_false", help="print the link without waiting"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qkv.serve import client  # noqa: PLC0415 - the standard library only

    outcome = client.submit(
        [Path(f) for f in args.files],
        server=args.server,
        token=args.token,
        assignment=args.assignment,
        wait=args.wait,
    )
    for line in outcome:
        print(line)
    return 0
