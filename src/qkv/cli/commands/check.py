"""`qkv check`: a student's public checks, with teaching feedback."""

from __future__ import annotations

import argparse
from pathlib import Path

from qkv.cli.commands import options
from qkv.course import layout


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "check", parents=[common], help="run the public checks on your work or answers.yaml"
    )
    p.add_argument(
        "path",
        nargs="?",
        help="your .py file, a notebook, answers.yaml (checks the form of the quiz answers), or a "
        "folder holding them; default: this folder. Works in a released folder with no course",
    )
    p.set_defaults(func=run)


def _target(args: argparse.Namespace, path: Path):
    """The public checks from the course when there is one here (or --course), else from the
    released folder the path is in: a student's copy needs no course."""
    from qkv.check import run as check  # noqa: PLC0415 - loaded when the command runs

    folder = layout.released_folder(path)
    if args.course or Path(layout.COURSE_FILE).is_file() or folder is None:
        course = options.course(args)
        assignment = (
            options.assignment(course, args) if args.assignment else check.named_by(course, path)
        )
        return check.for_course(course, assignment)
    return check.for_release(folder)


def run(args: argparse.Namespace) -> int:
    from qkv.check import run as check  # noqa: PLC0415 - loaded when the command runs

    path = Path(args.path or ".")
    target = _target(args, path)
    code, answers = check.paths_to_check(target, path)
    ok = True
    if code is not None:
        from qkv.sandbox.host import layers, missing_text  # noqa: PLC0415 - loaded when the command runs

        # A student's own code on their own machine: run with what there is, and say so.
        if layers().missing:
            print(f"note: checks run in a reduced sandbox here (missing {missing_text(layers())})")
        lines = check.check_code(target, code)
        for line in lines:
            print(line)
        if [line.function for line in lines] == [target.code_file]:  # it did not even load
            return 1
        # Notes say what of the file did not run; they are not verdicts.
        verdicts = [line for line in lines if line.status != "note"]
        done = sum(line.status == "ok" for line in verdicts)
        print(f"\n{done} of {len(verdicts)} functions pass the public checks.")
        ok = done == len(verdicts)
        if code.suffix == ".ipynb" and answers is None:
            quiz_ok, quiz_lines = check.check_notebook_answers(target, code)
            ok = ok and quiz_ok
            for text in quiz_lines:
                print(text)
    if answers is not None:
        quiz_ok, quiz_lines = check.check_answers(target, answers)
        ok = ok and quiz_ok
        for text in quiz_lines:
            print(text)
    return 0 if ok else 1
