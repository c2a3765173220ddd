"""`qkv grade`: grade a folder of submissions into a gradebook, results and feedback."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qkv.cli.commands import options
from qkv.course import layout
from qkv.errors import QkvError


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("grade", parents=[common], help="grade a folder of submissions")
    p.add_argument("submissions", metavar="SUBMISSIONS", help="folder of student folders or files")
    p.add_argument("--out", required=True, metavar="DIR", help="where the gradebook and results go")
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="grading processes, or with dask the workers to spread over (default: this machine's cores)",
    )
    p.add_argument(
        "--executor",
        choices=["local", "dask"],
        default="local",
        help="where grading runs: processes on this machine, or a Dask cluster (default: local)",
    )
    p.add_argument(
        "--scheduler", metavar="ADDRESS", help="the Dask scheduler, e.g. tcp://10.0.0.5:8786"
    )
    p.add_argument(
        "--force", action="store_true", help="regrade students that already have results"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.add_argument("--weak-sandbox", action="store_true", help=options.WEAK_SANDBOX_HELP)
    p.set_defaults(func=run)


def _executor(args: argparse.Namespace):
    if args.executor == "local":
        if args.scheduler:
            raise QkvError("--scheduler is only for --executor dask")
        return None
    if not args.scheduler:
        raise QkvError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
    from qkv.grade import dask_executor  # noqa: PLC0415 - dask is a heavy optional extra

    return dask_executor.DaskExecutor(args.scheduler)


def run(args: argparse.Namespace) -> int:
    course = options.course(args)
    executor = _executor(args)
    sandboxes = []
    if executor is None:  # started before the rest of the grader loads (see processes.py)
        from qkv.grade import processes  # noqa: PLC0415 - loaded when the command runs

        sandboxes = processes.early_sandboxes(
            course, Path(args.submissions), options.assignment(course, args).id, args.jobs
        )
    from qkv.grade import batch as grade  # noqa: PLC0415 - after the zygotes start

    summary = grade.grade(
        course,
        Path(args.submissions),
        assignment=options.assignment(course, args).id,
        out=Path(args.out),
        jobs=args.jobs,
        force=args.force,
        progress=not args.quiet,
        executor=executor,
        weak_sandbox=args.weak_sandbox,
        sandboxes=sandboxes,
    )
    for line in summary.skipped:
        print(f"qkv: {line}", file=sys.stderr)
    for line in summary.errors:
        print(f"qkv: grader error: {line}", file=sys.stderr)
    if not args.quiet:
        _print_summary(course, args, summary)
    return 0


def _print_summary(course, args: argparse.Namespace, summary) -> None:
    from qkv.grade import batch as grade  # noqa: PLC0415 - after the zygotes start
    from qkv.reports import class_report as report  # noqa: PLC0415 - loaded when the command runs

    out = Path(args.out)
    assignment = options.assignment(course, args)
    print(report.terminal_summary(course, assignment, out, summary.students, summary.tally))
    for line in grade.roster_lines(summary):
        print(line)
    print(
        f"graded {summary.graded} submissions, reused {summary.reused} earlier results, "
        f"skipped {sum(': skipped, ' in line for line in summary.skipped)} in {summary.seconds:.1f} s; isolation: {summary.isolation}"
    )
    for line in grade.regraded_lines(summary):
        print(line)
    if summary.weak_sandbox:
        print(f"weaker sandbox accepted: missing {', '.join(summary.weak_sandbox)}")
    print(
        f"wrote {out / layout.GRADEBOOK_FILE}, {out / layout.RESULTS_DIR}/, {out / layout.FEEDBACK_DIR}/ "
        f"and {out / layout.REPORT_FILE}"
    )
