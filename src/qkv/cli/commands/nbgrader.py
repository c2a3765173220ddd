"""`qkv nbgrader export` and `qkv nbgrader grade`: the assignment in an nbgrader course."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qkv.cli.commands import options
from qkv.course.config import load_course


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("nbgrader", help="use the assignment in an nbgrader course")
    nb_sub = p.add_subparsers(dest="nbgrader_command", required=True)
    q = nb_sub.add_parser(
        "export",
        parents=[common],
        help="write an nbgrader course (source notebook with hidden tests graded by qkv-kit)",
    )
    q.add_argument("dir", metavar="DIR", help="the nbgrader course folder to write into")
    q.set_defaults(func=run_export)
    q = nb_sub.add_parser(
        "grade",
        parents=[common],
        help="grade nbgrader's submitted/ notebooks in this kit's sandbox into nbgrader's gradebook",
    )
    q.add_argument("nbgrader_course", metavar="NBGRADER_COURSE", help="the nbgrader course folder")
    q.add_argument(
        "--out",
        metavar="DIR",
        help="results and feedback (default: NBGRADER_COURSE/qkv-graded/<assignment>)",
    )
    q.add_argument(
        "--jobs", type=int, metavar="N", help="grading processes (default: this machine's cores)"
    )
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.add_argument("--weak-sandbox", action="store_true", help=options.WEAK_SANDBOX_HELP)
    q.set_defaults(func=run_grade)


def run_export(args: argparse.Namespace) -> int:
    from qkv.integrations import nbgrader_export  # noqa: PLC0415 - loaded when the command runs

    course = options.course(args)
    out = Path(args.dir)
    assignment_id = options.assignment(course, args).id
    for path in nbgrader_export.export(course, options.assignment(course, args), out=out):
        print(f"wrote {path}")
    print(
        f"next, in {out}: nbgrader generate_assignment {assignment_id}; then, with submissions in "
        f"submitted/: qkv nbgrader grade {out} --assignment {assignment_id} (sandboxed; nbgrader's own "
        "autograde runs student code unsandboxed)"
    )
    return 0


def run_grade(args: argparse.Namespace) -> int:
    from qkv.integrations import nbgrader_grade  # noqa: PLC0415 - loaded when the command runs

    nb_course = Path(args.nbgrader_course)
    course = load_course(args.course or nbgrader_grade.course_file(nb_course))
    assignment = options.assignment(course, args)
    summary, out = nbgrader_grade.grade_course(
        course,
        nb_course,
        assignment=assignment.id,
        out=Path(args.out) if args.out else None,
        jobs=args.jobs,
        progress=not args.quiet,
        weak_sandbox=args.weak_sandbox,
    )
    for line in summary.skipped:
        print(f"qkv: {line}", file=sys.stderr)
    for line in summary.errors:
        print(f"qkv: grader error: {line}", file=sys.stderr)
    print(
        f"graded {summary.graded} notebooks in the sandbox ({summary.isolation}); scores written to "
        f"{nb_course / nbgrader_grade.GRADEBOOK}, results and feedback in {out}"
    )
    if summary.weak_sandbox:
        print(f"weaker sandbox accepted: missing {', '.join(summary.weak_sandbox)}")
    return 0
