"""`qkv grade`: grade a folder of submissions in parallel, sandboxed, into a gradebook.

The parent only discovers submissions, hands out chunks and writes the gradebook; each grading
process (one per job) loads the reference, owns one sandbox zygote and runs the hidden suites on its
chunks, writing results/<student>.json atomically as each student finishes. A rerun skips students
whose results still hold (`reuse`: same submission, hand-in time, course, content and kit; unless
force), so a killed batch completes to the same gradebook, and a changed input regrades only whom it touches.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from qkv import __version__
from qkv.content import loader
from qkv.course import layout
from qkv.course import roster as roster_mod
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.grade import handins, local, processes, reuse
from qkv.grade import plan as plan_mod
from qkv.results import records as results
from qkv.results.records import atomic_write
from qkv.sandbox.host import Sandbox, layers, missing_text


@dataclass
class Summary:
    """What a grading run did, for the CLI to print."""

    graded: int = 0
    reused: int = 0
    skipped: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    students: list[str] = field(default_factory=list)
    isolation: str = ""
    weak_sandbox: list[str] = field(default_factory=list)  # layers missing, accepted by the grader
    seconds: float = 0.0
    tally: object = None  # the class's numbers (a class_tally.Tally), for the summary
    regraded: dict = field(
        default_factory=dict
    )  # reuse.REASONS key -> students graded for that reason
    missing: list[str] = field(default_factory=list)  # on the roster, no submission
    unexpected: list[str] = field(default_factory=list)  # graded, not on the roster


SHOWN = 5  # students named per line of the summary


def _names(students: list[str]) -> str:
    more = f" and {len(students) - SHOWN} more" if len(students) > SHOWN else ""
    return ", ".join(students[:SHOWN]) + more


def regraded_lines(summary: Summary) -> list[str]:
    """Why the graded submissions were graded, a line per reason ('  1 submission changed: frank'); nothing
    when everyone was simply new or --force was given."""
    if not summary.reused and set(summary.regraded) <= {"new", "force"}:
        return []
    return [
        f"  {len(who)} {reuse.REASONS[reason]}: {_names(who)}"
        for reason, who in summary.regraded.items()
    ]


def roster_lines(summary: Summary) -> list[str]:
    lines = []
    if summary.missing:
        lines.append(
            f"No submission from {len(summary.missing)} on the roster: {_names(summary.missing)}"
        )
    if summary.unexpected:
        lines.append(
            f"Graded {len(summary.unexpected)} not on the roster: {_names(summary.unexpected)}"
        )
    return lines


# -- the batch ----------------------------------------------------------------------------------


def check_options(submissions: Path, out: Path, jobs: int | None, assignment: str) -> None:
    """Refuse, with one line, options that would grade the wrong thing or fail later."""
    submissions = layout.submissions_root(submissions, assignment)
    if jobs is not None and jobs < 1:
        raise QkvError(f"--jobs: must be at least 1, got {jobs}")
    if out.exists() and not out.is_dir():
        raise QkvError(
            f"--out {out}: is a file; give a folder for the gradebook, results and pages"
        )
    if submissions.is_dir() and out.resolve().is_relative_to(submissions.resolve()):
        raise QkvError(
            f"--out {out}: inside the submissions folder {submissions}; its files would be graded "
            "as a student's. Give a folder outside it"
        )


def run_metadata(course: Course, assignment: Assignment, summary: Summary, jobs: int) -> dict:
    return {
        "assignment": assignment.id,
        "course_seed": course.seed,
        "isolation": summary.isolation,
        "weak_sandbox_accepted": summary.weak_sandbox,
        "jobs": jobs,
        "submissions": len(summary.students),
        "graded": summary.graded,
        "reused": summary.reused,
        "skipped": summary.skipped,
        "grader_errors": summary.errors,
        "regraded": {reuse.REASONS[k]: len(v) for k, v in summary.regraded.items()},
        "missing": summary.missing,
        "not_on_roster": summary.unexpected,
        "duration_s": round(summary.seconds, 3),
        "versions": {
            "qkv-kit": __version__,
            "python": platform.python_version(),
            "numpy": np.__version__,
        },
    }


def grade(
    course: Course,
    submissions: Path,
    *,
    assignment: str,
    out: Path,
    jobs: int | None = None,
    force: bool = False,
    progress: bool = True,
    pages: bool = True,
    executor=None,
    weak_sandbox: bool = False,
    sandboxes=(),
) -> Summary:
    """Grade every submission in `submissions` into `out`; returns what happened.

    Args:
        jobs: grading processes (default: all cores, but one per processes.STUDENTS_PER_PROCESS students to grade).
        force: regrade students whose results already exist.
        progress: show a progress bar on stderr.
        pages: write feedback/<student>.html and report.html.
        executor: executor(course, assignment, chunks, out, jobs) yielding (done, errors) per chunk;
            default: local processes (`run_local`). One whose sandboxes run elsewhere (Dask) reports
            their isolation in an `isolation` attribute once it has run.
        weak_sandbox: grade even when this machine lacks an isolation layer (recorded in run.json);
            without it, a missing layer stops the run with a QkvError naming it.
        sandboxes: the grading processes' sandboxes, started by the caller (processes.early_sandboxes);
            closed here, used or not.
    """
    started = time.monotonic()
    sandboxes = list(sandboxes)
    try:
        a = course.assignment(assignment)
        out, submissions = Path(out), Path(submissions)
        check_options(submissions, out, jobs, a.id)
        found = layers()
        if found.missing and not weak_sandbox and executor is None:
            raise QkvError(
                f"the sandbox here lacks {missing_text(found)}; student code would be less contained. "
                "Grade on a machine that has them, or pass --weak-sandbox to accept it"
            )
        if executor is not None:  # its workers have their own
            _close(sandboxes)
        elif (
            not sandboxes
        ):  # its zygotes warm up while the class, the content and earlier results are read
            sandboxes.append(Sandbox(course.limits, packages=course.packages))
        loader.load(
            course, a
        )  # a part function the reference lacks, or broken content, stops the run here
        skipped: list[str] = []
        with plan_mod.make(course, a, submissions, out, force, skipped) as plan:
            return _grade_found(
                course,
                a,
                out,
                plan,
                skipped,
                found,
                jobs=jobs,
                progress=progress,
                pages=pages,
                executor=executor,
                sandboxes=sandboxes,
                started=started,
            )
    finally:
        _close(sandboxes)


def _close(sandboxes: list) -> None:
    """Close every sandbox of the list and empty it (for one handed to a grading process, closing
    reaps its keeper and frees what this process claimed for it)."""
    while sandboxes:
        sandboxes.pop().close()


def _grade_found(
    course: Course,
    a: Assignment,
    out: Path,
    plan: plan_mod.Plan,
    skipped,
    found,
    *,
    jobs,
    progress,
    pages,
    executor,
    sandboxes,
    started,
) -> Summary:
    roster = roster_mod.load(course)
    students = plan.students
    summary = Summary(
        skipped=skipped,
        students=students,
        isolation=found.describe(),
        weak_sandbox=found.missing if executor is None else [],
    )
    if roster is not None:
        summary.missing = sorted(set(roster.ids) - set(students))
        summary.unexpected = sorted(set(students) - set(roster.ids))
    summary.regraded = plan.regraded
    summary.reused = plan.count - plan.todo
    if jobs is None:
        jobs = processes.default_jobs(plan.todo) if executor is None else os.cpu_count() or 1
    jobs = max(1, min(jobs, plan.todo or 1))
    if executor is None:
        _close(
            sandboxes[jobs:]
        )  # more were started than this run needs (earlier results reused, say)
        del sandboxes[jobs:]
    results_dir = out / results.RESULTS_DIR
    results_dir.mkdir(parents=True, exist_ok=True)
    for stale in results_dir.glob(".*.tmp"):  # left by a run killed mid-write
        stale.unlink(missing_ok=True)
    bar = None
    if progress and plan.todo:
        from tqdm import tqdm  # noqa: PLC0415 - only interactive runs draw a bar

        tqdm.monitor_interval = 0  # no monitor thread: grading processes are forked from this one
        bar = tqdm(total=plan.todo, unit="sub", desc="grading", file=sys.stderr, dynamic_ncols=True)
    run = executor or functools.partial(local.run_local, pages=pages, sandboxes=sandboxes)
    from qkv.reports import spill  # noqa: PLC0415 - only a run that writes its outputs needs it

    with spill.Spill(
        out
    ) as shares:  # their share of the outputs, done by the processes that graded them
        try:
            for done, errors, *done_shares in run(course, a, plan.chunks(jobs), out, jobs):
                summary.graded += len(done)
                summary.errors += errors
                for batch in done_shares:
                    shares.add(batch)
                if bar:
                    bar.update(len(done))
        finally:
            if bar:
                bar.close()
        return _finish(
            course,
            a,
            out,
            summary,
            plan,
            shares,
            roster=roster,
            jobs=jobs,
            pages=pages,
            isolation=getattr(run, "isolation", ""),
            started=started,
        )


def _finish(
    course: Course,
    a: Assignment,
    out: Path,
    summary: Summary,
    plan: plan_mod.Plan,
    shares,
    *,
    roster,
    jobs,
    pages,
    isolation,
    started,
) -> Summary:
    """Once every submission is graded: check that each has its result, choose among hand-ins, and
    write run.json, the gradebook, and with `pages` the report."""
    from qkv.reports import outputs  # noqa: PLC0415 - only a run that writes its outputs needs them

    summary.isolation = isolation or summary.isolation
    lost = [
        sub.key
        for sub, _ in plan.each()
        if not results.path_for(out, sub.student, sub.handin).is_file()
    ]
    if lost:
        raise QkvError(
            f"{len(lost)} submissions got no result (first: {lost[0]}); rerun to complete the batch"
        )
    handins.select(a, out, (sub for sub, _ in plan.each()), course.resubmissions)
    summary.seconds = time.monotonic() - started
    atomic_write(
        out / layout.RUN_FILE, json.dumps(run_metadata(course, a, summary, jobs), indent=1) + "\n"
    )
    summary.tally = outputs.write(
        course,
        a,
        out,
        summary.students,
        pages=pages,
        roster=roster,
        done=shares.in_order(),
        errors=summary.errors,
    )
    return summary
