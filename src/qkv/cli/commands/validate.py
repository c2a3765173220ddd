"""`qkv validate`: prove the hidden suites on known submissions, or by mutation testing."""

from __future__ import annotations

import argparse

from qkv.cli.commands import options


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "validate", parents=[common], help="prove the hidden suites on known submissions"
    )
    p.add_argument("--jobs", type=int, metavar="N", help="grading processes (default: all cores)")
    p.add_argument(
        "--mutants",
        action="store_true",
        help="mutation testing instead: grade small changes of the reference and report how many the "
        "suites catch",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.mutants:
        return _mutants(args)
    from qkv.validate import run as validate  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    verdicts = validate.validate(course, options.assignment(course, args), jobs=args.jobs)
    for v in verdicts:
        print(v)
    bad = [v for v in verdicts if not v.ok]
    print(f"\n{len(verdicts) - len(bad)} of {len(verdicts)} validations hold.")
    return 1 if bad else 0


def _mutants(args: argparse.Namespace) -> int:
    from qkv.validate import mutants  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    report = mutants.run(course, options.assignment(course, args), jobs=args.jobs)
    print(
        f"{report.generated} mutants of the reference, {report.equivalent} equivalent to it on every trusted input"
    )
    for m in report.survivors:
        print(f"survived  {m}")
    print(report.summary())
    return 0 if report.share >= mutants.TARGET else 1
