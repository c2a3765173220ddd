"""`qkv submit FILE... --server URL [--token TOKEN]`: hand in to a `qkv serve`, print the score."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from qkv.errors import QkvError


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("submit", help="hand in to a qkv serve and print the score")
    p.add_argument("files", nargs="+", metavar="FILE", help="attention.py and answers.yaml, or ...")
    p.add_argument("--server", required=True, metavar="URL", help="the service's address")
    p.add_argument(
        "--token",
        metavar="TOKEN",
        help="your sign-in token (default: $QKV_TOKEN, which keeps it out of your shell history)",
    )
    p.add_argument("--assignment", metavar="ID", help="assignment id (default: from the file)")
    p.add_argument(
        "--no-wait", dest="wait", action="store_false", help="print the link without waiting"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qkv.serve import client  # noqa: PLC0415 - the standard library only

    token = args.token or os.environ.get("QKV_TOKEN")
    if not token:
        raise QkvError("no sign-in token: give --token TOKEN or set QKV_TOKEN")
    outcome = client.submit(
        [Path(f) for f in args.files],
        server=args.server,
        token=token,
        assignment=args.assignment,
        wait=args.wait,
    )
    for line in outcome:
        print(line)
    return 0
