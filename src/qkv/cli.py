"""`qkv`: a thin command line over the library; it parses, calls and prints."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from qkv import __version__
from qkv.course import layout
from qkv.course.config import load_course
from qkv.errors import QkvError


def _course(args):
    return load_course(args.course)


def _assignment(course, args):
    """The assignment --assignment names, or the course's first."""
    return course.assignment(args.assignment) if args.assignment else course.assignments[0]


def _assignments(course, args):
    """The assignment --assignment names, or every assignment of the course."""
    return [course.assignment(args.assignment)] if args.assignment else list(course.assignments)


def cmd_fixture(args) -> int:
    from qkv.content import loader

    course = _course(args)
    example = loader.load(course, _assignment(course, args)).example
    print(json.dumps(example.as_json()) if args.json else example.render())
    return 0


def cmd_release(args) -> int:
    from qkv.release import steps as release

    course = _course(args)
    chosen = _assignments(course, args)
    if len(chosen) > 1 and (args.out or args.bundle):
        raise QkvError("--out and --bundle name one assignment's release: add --assignment ID")
    for assignment in chosen:
        out = Path(args.out) if args.out else layout.release_dir(course, assignment)
        bundle = Path(args.bundle) if args.bundle else layout.bundle_path(course, assignment)
        for path in release.write(course, assignment, out=out, bundle=bundle):
            print(f"wrote {path}")
    return 0


def _check_target(args, path: Path):
    """The public checks from the course when there is one here (or --course), else from the
    released folder the path is in: a student's copy needs no course."""
    from qkv.check import run as check

    folder = layout.released_folder(path)
    if args.course or Path(layout.COURSE_FILE).is_file() or folder is None:
        course = _course(args)
        assignment = _assignment(course, args) if args.assignment else check.named_by(course, path)
        return check.for_course(course, assignment)
    return check.for_release(folder)


def cmd_check(args) -> int:
    from qkv.check import run as check

    path = Path(args.path or ".")
    target = _check_target(args, path)
    code, answers = check.paths_to_check(target, path)
    ok = True
    if code is not None:
        from qkv.sandbox.host import layers, missing_text

        if (
            layers().missing
        ):  # a student's own code on their own machine: run with what there is, and say so
            print(f"note: checks run in a reduced sandbox here (missing {missing_text(layers())})")
        lines = check.check_code(target, code)
        for line in lines:
            print(line)
        if [line.function for line in lines] == [target.code_file]:  # it did not even load
            return 1
        verdicts = [
            line for line in lines if line.status != "note"
        ]  # notes say what of the file did not run
        done = sum(line.status == "ok" for line in verdicts)
        print(f"\n{done} of {len(verdicts)} functions pass the public checks.")
        ok = done == len(verdicts)
        if code.suffix == ".ipynb" and answers is None:
            quiz_ok, quiz_lines = check.check_notebook_answers(target, code)
            ok = ok and quiz_ok
            for line in quiz_lines:
                print(line)
    if answers is not None:
        quiz_ok, quiz_lines = check.check_answers(target, answers)
        ok = ok and quiz_ok
        for line in quiz_lines:
            print(line)
    return 0 if ok else 1


def _executor(args):
    if args.executor == "local":
        if args.scheduler:
            raise QkvError("--scheduler is only for --executor dask")
        return None
    if not args.scheduler:
        raise QkvError("--executor dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
    from qkv.grade import dask_executor

    return dask_executor.DaskExecutor(args.scheduler)


def cmd_grade(args) -> int:
    course = _course(args)
    executor = _executor(args)
    sandboxes = []
    if executor is None:  # started before the rest of the grader loads (see processes.py)
        from qkv.grade import processes

        sandboxes = processes.early_sandboxes(
            course, Path(args.submissions), _assignment(course, args).id, args.jobs
        )
    from qkv.grade import batch as grade

    summary = grade.grade(
        course,
        Path(args.submissions),
        assignment=_assignment(course, args).id,
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
        from qkv.reports import class_report as report

        out = Path(args.out)
        print(
            report.terminal_summary(
                course, _assignment(course, args), out, summary.students, summary.tally
            )
        )
        for line in grade.roster_lines(summary):
            print(line)
        print(
            f"graded {summary.graded} submissions, reused {summary.reused} earlier results, "
            f"skipped {len(summary.skipped)} in {summary.seconds:.1f} s; isolation: {summary.isolation}"
        )
        for line in grade.regraded_lines(summary):
            print(line)
        if summary.weak_sandbox:
            print(f"weaker sandbox accepted: missing {', '.join(summary.weak_sandbox)}")
        print(
            f"wrote {out / layout.GRADEBOOK_FILE}, {out / layout.RESULTS_DIR}/, {out / layout.FEEDBACK_DIR}/ "
            f"and {out / layout.REPORT_FILE}"
        )
    return 0


def cmd_gradescope(args) -> int:
    from qkv.course.config import course_file
    from qkv.integrations import gradescope

    course = _course(args)
    path = gradescope.build_zip(
        course,
        course_file(args.course),
        assignment=_assignment(course, args).id,
        out=Path(args.out),
    )
    print(f"wrote {path}: upload it as the assignment's autograder on Gradescope")
    return 0


def cmd_gradescope_run(args) -> int:
    from qkv.integrations import gradescope

    course = _course(args)
    root = Path(args.root) if args.root else gradescope.default_root()
    data = gradescope.run(
        course, assignment=_assignment(course, args).id, root=root, weak_sandbox=args.weak_sandbox
    )
    extra = data["extra_data"]
    print(f"{extra['student']}: {data['score']:g} points; {data['output']}")
    print(f"isolation: {extra['isolation']}")
    for line in extra["grader_errors"]:
        print(f"qkv: grader error: {line}", file=sys.stderr)
    print(f"wrote {root / 'results' / 'results.json'} in {data['execution_time']:.1f} s")
    return 0


def cmd_export(args) -> int:
    from qkv.integrations import lms

    course = _course(args)
    path = lms.export(
        course, args.format, graded=[Path(g) for g in args.graded], out=Path(args.out)
    )
    print(f"wrote {path}")
    return 0


def cmd_validate(args) -> int:
    if args.mutants:
        return _validate_mutants(args)
    from qkv.validate import run as validate

    course = _course(args)
    verdicts = validate.validate(course, _assignment(course, args), jobs=args.jobs)
    for v in verdicts:
        print(v)
    bad = [v for v in verdicts if not v.ok]
    print(f"\n{len(verdicts) - len(bad)} of {len(verdicts)} validations hold.")
    return 1 if bad else 0


def _validate_mutants(args) -> int:
    from qkv.validate import mutants

    course = _course(args)
    report = mutants.run(course, _assignment(course, args), jobs=args.jobs)
    print(
        f"{report.generated} mutants of the reference, {report.equivalent} equivalent to it on every trusted input"
    )
    for m in report.survivors:
        print(f"survived  {m}")
    print(report.summary())
    return 0 if report.share >= mutants.TARGET else 1


def cmd_demo(args) -> int:
    from qkv.content import loader
    from qkv.validate import synthetic

    course = _course(args)
    root, code = Path(args.out), 0
    for assignment in _assignments(course, args):
        content = loader.load(course, assignment)
        out = root / assignment.id
        subs = out / "submissions"
        answers = synthetic.answers_for(course, assignment, content)
        students = synthetic.write_class(content, subs, args.size, answers=answers)
        print(f"wrote a synthetic class of {len(students)} submissions to {subs}/")
        # A synthetic class of the kit's own code: grade with whatever sandbox this machine offers (and say so).
        args.submissions, args.out, args.force, args.weak_sandbox = (
            str(subs),
            str(out / "graded"),
            True,
            True,
        )
        args.assignment = assignment.id
        code = max(code, cmd_grade(args))
        print()
        print((out / "graded" / layout.GRADEBOOK_FILE).read_text(encoding="utf-8"))
    return code


def cmd_nbgrader_export(args) -> int:
    from qkv.integrations import nbgrader_export

    course = _course(args)
    out = Path(args.dir)
    for path in nbgrader_export.export(course, _assignment(course, args), out=out):
        print(f"wrote {path}")
    assignment_id = _assignment(course, args).id
    print(
        f"next, in {out}: nbgrader generate_assignment {assignment_id}; then, with submissions in "
        f"submitted/: qkv nbgrader grade {out} --assignment {assignment_id} (sandboxed; nbgrader's own "
        "autograde runs student code unsandboxed)"
    )
    return 0


def cmd_nbgrader_grade(args) -> int:
    from qkv.integrations import nbgrader_grade

    nb_course = Path(args.nbgrader_course)
    course = load_course(args.course or nbgrader_grade.course_file(nb_course))
    assignment = _assignment(course, args)
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


def _quiz_variant(args):
    from qkv.content import loader
    from qkv.intake.submissions import is_valid_id
    from qkv.quiz import grading as quiz

    if not is_valid_id(args.student):
        raise QkvError(f"--student: '{args.student}' is not a usable student id ({layout.ID_RULE})")
    course = _course(args)
    assignment = _assignment(course, args)
    master = quiz.load_quiz(course, assignment)
    ref = loader.load(course, assignment).reference
    return master, quiz.variant(master, course, assignment, args.student, ref)


def cmd_quiz_show(args) -> int:
    from qkv.quiz import render as quiz_render

    master, posed = _quiz_variant(args)
    text = quiz_render.render_text(master, posed, args.student)
    if not getattr(args, "notebook", None):
        print(text, end="")
        return 0
    from qkv.release import notebook as notebook_build
    from qkv.release import steps as release

    course = _course(args)
    assignment = _assignment(course, args)
    released = release.build(course, assignment).get(layout.notebook_file(assignment))
    if released is None:
        raise QkvError(
            f"assignment '{assignment.id}' releases no notebook (set `notebook:` in course.yaml)"
        )
    Path(args.notebook).write_text(notebook_build.with_quiz_copy(released, text), encoding="utf-8")
    print(f"wrote {args.notebook}: the student notebook with {args.student}'s own copy of the quiz")
    return 0


def cmd_quiz_key(args) -> int:
    from qkv.quiz import render as quiz_render

    master, posed = _quiz_variant(args)
    print(quiz_render.answer_key(master, posed, args.student), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
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

    p = sub.add_parser("fixture", parents=[common], help="print the assignment's worked example")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_fixture)

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
    p.set_defaults(func=cmd_release)

    p = sub.add_parser(
        "check", parents=[common], help="run the public checks on your work or answers.yaml"
    )
    p.add_argument(
        "path",
        nargs="?",
        help="your .py file, a notebook, answers.yaml (checks the form of the quiz answers), or a "
        "folder holding them; default: this folder. Works in a released folder with no course",
    )
    p.set_defaults(func=cmd_check)

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
    p.add_argument(
        "--weak-sandbox",
        action="store_true",
        help="grade even if this machine lacks a sandbox layer (recorded in run.json and the report)",
    )
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("gradescope", parents=[common], help="build the Gradescope autograder zip")
    p.add_argument(
        "--out",
        default="autograder.zip",
        metavar="ZIP",
        help="the zip to write (default: autograder.zip)",
    )
    p.set_defaults(func=cmd_gradescope)

    p = sub.add_parser(
        "gradescope-run",
        parents=[common],
        help="grade the one submission inside Gradescope's container (run_autograder calls this)",
    )
    p.add_argument(
        "--root",
        metavar="DIR",
        help="Gradescope's folder (default: $QKV_GRADESCOPE_ROOT or /autograder)",
    )
    p.add_argument(
        "--weak-sandbox",
        action="store_true",
        help="grade even if the container lacks a sandbox layer",
    )
    p.set_defaults(func=cmd_gradescope_run)

    p = sub.add_parser(
        "export",
        parents=[common],
        help="grades for an LMS (Canvas, Moodle), nbgrader or a course table",
    )
    p.add_argument(
        "format",
        choices=["canvas", "moodle", "nbgrader", "course"],
        help="canvas: gradebook import; moodle: grade import; nbgrader: its export columns; "
        "course: a column per assignment",
    )
    p.add_argument(
        "--graded",
        required=True,
        action="append",
        metavar="DIR",
        help="a folder `qkv grade` wrote (repeat for more assignments)",
    )
    p.add_argument("--out", required=True, metavar="FILE", help="the CSV to write")
    p.set_defaults(func=cmd_export)

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
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("demo", parents=[common], help="make a synthetic class and grade it")
    p.add_argument("--out", default="demo-out", metavar="DIR", help="where the class and grades go")
    p.add_argument(
        "--size", type=int, metavar="N", help="number of students (default: one of each kind)"
    )
    p.add_argument("--jobs", type=int, metavar="N", help="grading processes (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_demo, executor="local", scheduler=None)

    p = sub.add_parser("quiz", help="one student's copy of the quiz, or its answer key")
    quiz_sub = p.add_subparsers(dest="quiz_command", required=True)
    for name, func, text in (
        ("show", cmd_quiz_show, "print the student's own copy of the quiz (no answers)"),
        ("key", cmd_quiz_key, "print an answers.yaml that scores full marks for the student"),
    ):
        q = quiz_sub.add_parser(name, parents=[common], help=text)
        q.add_argument(
            "--student",
            required=True,
            metavar="ID",
            help="student id: their numbers and choice order",
        )
        if name == "show":
            q.add_argument(
                "--notebook",
                metavar="OUT.ipynb",
                help="write the student notebook with this student's copy in its quiz cell",
            )
        q.set_defaults(func=func)

    p = sub.add_parser("nbgrader", help="use the assignment in an nbgrader course")
    nb_sub = p.add_subparsers(dest="nbgrader_command", required=True)
    q = nb_sub.add_parser(
        "export",
        parents=[common],
        help="write an nbgrader course (source notebook with hidden tests graded by qkv-kit)",
    )
    q.add_argument("dir", metavar="DIR", help="the nbgrader course folder to write into")
    q.set_defaults(func=cmd_nbgrader_export)
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
    q.add_argument(
        "--weak-sandbox",
        action="store_true",
        help="grade even if this machine lacks a sandbox layer (recorded in run.json and the report)",
    )
    q.set_defaults(func=cmd_nbgrader_grade)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except QkvError as e:
        print(f"qkv: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("qkv: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
