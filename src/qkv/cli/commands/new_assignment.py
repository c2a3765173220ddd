"""`qkv new-assignment ID`: write a content folder to start an assignment from."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "new-assignment",
        help="write solutions/ID/: one function, a suite, a mistake and a quiz question",
    )
    p.add_argument("id", metavar="ID", help="the new assignment's id (lower case, digits, _)")
    p.add_argument("--title", help="its title (default: made from the id)")
    p.add_argument(
        "--course", metavar="PATH", help="course.yaml or its folder (default: ./course.yaml)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from qkv.release import scaffold  # noqa: PLC0415 - loaded when the command runs

    folder, lines = scaffold.create(args.course, args.id, args.title)
    print(f"wrote {folder}")
    if lines:
        print("add these lines under `assignments:` in course.yaml:\n" + lines, end="")
    else:
        print(f"added '{args.id}' to course.yaml; try: qkv validate --assignment {args.id}")
    return 0
