"""`qkv grade`: grade a folder of submissions in parallel, sandboxed, into a gradebook.

The parent only discovers submissions, hands out chunks and writes the gradebook; each grading
process (one per job) loads the reference, owns one sandbox zygote and runs the hidden suites on its
chunks, writing results/<student>.json atomically as each student finishes. A rerun skips students
whose results still hold (`reuse`: same submission, hand-in time, course, content and kit; unless
force), so a killed batch completes to the same gradebook, and a changed input regrades only whom it touches.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from qkv import __version__
from qkv.content import loader
from qkv.course import layout
from qkv.course import roster as roster_mod
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.grade import handins, local, processes, progress, reuse
from qkv.grade import plan as plan_mod
from qkv.reports import outputs, spill
from qkv.results import records as results
from qkv.results.records import atomic_write
from qkv.sandbox import isolation
from qkv.sandbox.host import Sandbox, layers, missing_text

# executor(course, assignment, chunks, out, jobs) -> (done, errors, *shares) per chunk.
Executor = Callable[..., Iterator[tuple]]


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


def check_options(submissions: Path, out: Path, jobs: int | None, assignment: str) -> None:
    """Refuse, with one line, options that would grade the wrong thing or fail later.

    Args:
        submissions: the submissions folder given.
        out: the output folder given.
        jobs: --jobs, or None.
        assignment: the assignment's id.

    Raises:
        QkvError: --jobs below 1, --out a file, or --out inside the submissions.
    """
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
    """What run.json records of a run: its inputs, counts, isolation and versions.

    Args:
        course: the course.
        assignment: the assignment graded.
        summary: what the run did.
        jobs: the grading processes it used.

    Returns:
        run.json's content.
    """
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


@dataclass
class Run:
    """One grading run: its options, and what each stage of STAGES adds to it."""

    course: Course
    assignment: Assignment
    submissions: Path
    out: Path
    jobs: int | None
    force: bool
    progress: bool
    pages: bool
    executor: Executor | None
    weak_sandbox: bool
    sandboxes: list[Sandbox]
    started: float = field(default_factory=time.monotonic)
    # What the context managers the stages enter are kept open by, until the run ends.
    stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    found: isolation.Layers | None = None
    skipped: list[str] = field(default_factory=list)
    plan: plan_mod.Plan | None = None
    roster: roster_mod.Roster | None = None
    summary: Summary = field(default_factory=Summary)
    shares: spill.Spill | None = None
    isolation: str = ""  # as the executor reports it, once it has run


def check_run_options(run: Run) -> None:
    """Refuse options that would grade the wrong thing, and a sandbox that lacks a layer."""
    check_options(run.submissions, run.out, run.jobs, run.assignment.id)
    run.found = layers()
    if run.found.missing and not run.weak_sandbox and run.executor is None:
        raise QkvError(
            f"the sandbox here lacks {missing_text(run.found)}; student code would be less "
            "contained. Grade on a machine that has them, or pass --weak-sandbox to accept it"
        )


def start_sandboxes(run: Run) -> None:
    """A local run's first zygote warms up while the class, the content and earlier results are
    read; a Dask executor's workers have sandboxes of their own."""
    if run.executor is not None:
        _close(run.sandboxes)
    elif not run.sandboxes:
        run.sandboxes.append(Sandbox(run.course.limits, packages=run.course.packages))


def load_content(run: Run) -> None:
    """A part function the reference lacks, or broken content, stops the run here."""
    loader.load(run.course, run.assignment)


def discover(run: Run) -> None:
    """The class's hand-ins, each with why it is graded or that its result is reused."""
    run.plan = run.stack.enter_context(
        plan_mod.make(run.course, run.assignment, run.submissions, run.out, run.force, run.skipped)
    )


def plan_processes(run: Run) -> None:
    """How many grading processes, the summary so far, and a clean results folder."""
    plan, executor = run.plan, run.executor
    assert plan is not None and run.found is not None
    run.roster = roster_mod.load(run.course)
    summary = run.summary = Summary(
        skipped=run.skipped,
        students=plan.students,
        isolation=run.found.describe(),
        weak_sandbox=run.found.missing if executor is None else [],
    )
    if run.roster is not None:
        summary.missing = sorted(set(run.roster.ids) - set(plan.students))
        summary.unexpected = sorted(set(plan.students) - set(run.roster.ids))
    summary.regraded = plan.regraded
    summary.reused = plan.count - plan.todo
    jobs = run.jobs
    if jobs is None:
        jobs = processes.default_jobs(plan.todo) if executor is None else os.cpu_count() or 1
    run.jobs = max(1, min(jobs, plan.todo or 1))
    if executor is None:  # more were started than this run needs (earlier results reused, say)
        extra = run.sandboxes[run.jobs :]
        del run.sandboxes[run.jobs :]
        _close(extra)
    results_dir = run.out / results.RESULTS_DIR
    results_dir.mkdir(parents=True, exist_ok=True)
    for stale in results_dir.glob(".*.tmp"):  # left by a run killed mid-write
        stale.unlink(missing_ok=True)


def grade_chunks(run: Run) -> None:
    """Grade the plan's chunks; each student's share of the outputs is done where they are graded."""
    plan, summary = run.plan, run.summary
    assert plan is not None and run.jobs is not None
    bar = None
    if run.progress and plan.todo:
        bar = progress.bar(plan.todo)
    execute = run.executor or functools.partial(
        local.run_local, pages=run.pages, sandboxes=run.sandboxes
    )
    shares = run.shares = run.stack.enter_context(spill.Spill(run.out))
    try:
        chunks = plan.chunks(run.jobs)
        for done, errors, *done_shares in execute(
            run.course, run.assignment, chunks, run.out, run.jobs
        ):
            summary.graded += len(done)
            summary.errors += errors
            for batch in done_shares:
                shares.add(batch)
            if bar:
                bar.update(len(done))
    finally:
        if bar:
            bar.close()
    run.isolation = getattr(execute, "isolation", "")


def check_complete(run: Run) -> None:
    """Every hand-in has its result, or the run says so and keeps what it has."""
    assert run.plan is not None
    lost = [
        sub.key
        for sub, _ in run.plan.each()
        if not results.path_for(run.out, sub.student, sub.handin).is_file()
    ]
    if lost:
        raise QkvError(
            f"{len(lost)} submissions got no result (first: {lost[0]}); rerun to complete the batch"
        )


def select_handins(run: Run) -> None:
    """Of a student's several hand-ins, the one that counts."""
    assert run.plan is not None
    subs = (sub for sub, _ in run.plan.each())
    handins.select(run.assignment, run.out, subs, run.course.resubmissions)


def write_outputs(run: Run) -> None:
    """run.json, the gradebook, and with `pages` the report."""
    assert run.shares is not None and run.jobs is not None
    summary = run.summary
    summary.isolation = run.isolation or summary.isolation
    summary.seconds = time.monotonic() - run.started
    metadata = run_metadata(run.course, run.assignment, summary, run.jobs)
    atomic_write(run.out / layout.RUN_FILE, json.dumps(metadata, indent=1) + "\n")
    summary.tally = outputs.write(
        run.course,
        run.assignment,
        run.out,
        summary.students,
        pages=run.pages,
        roster=run.roster,
        done=run.shares.in_order(),
        errors=summary.errors,
    )


# The grading pipeline, in order; a test asserts it.
STAGES = (
    check_run_options,
    start_sandboxes,
    load_content,
    discover,
    plan_processes,
    grade_chunks,
    check_complete,
    select_handins,
    write_outputs,
)


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
    executor: Executor | None = None,
    weak_sandbox: bool = False,
    sandboxes: Iterable[Sandbox] = (),
) -> Summary:
    """Grade every submission in `submissions` into `out`, stage by stage (STAGES).

    Args:
        course: the course.
        submissions: the folder of submissions (or nbgrader's course folder).
        assignment: the id of the assignment graded.
        out: where the gradebook, results and pages go.
        jobs: grading processes (default: all cores, but one per processes.STUDENTS_PER_PROCESS
            students to grade).
        force: regrade students whose results already exist.
        progress: show a progress bar on stderr.
        pages: write feedback/<student>.html and report.html.
        executor: executor(course, assignment, chunks, out, jobs) yielding (done, errors) per chunk;
            default: local processes (`local.run_local`). One whose sandboxes run elsewhere (Dask)
            reports their isolation in an `isolation` attribute once it has run.
        weak_sandbox: grade even when this machine lacks an isolation layer (recorded in run.json);
            without it, a missing layer stops the run with a QkvError naming it.
        sandboxes: the grading processes' sandboxes, started by the caller
            (processes.early_sandboxes); closed here, used or not.

    Returns:
        What the run did, for the command to print.

    Raises:
        QkvError: options, the sandbox or the class keep the run from grading, or a grading
            process ended abruptly (the results written so far are kept).
    """
    started = time.monotonic()
    boxes = list(sandboxes)
    try:
        run = Run(
            course,
            course.assignment(assignment),
            Path(submissions),
            Path(out),
            jobs,
            force,
            progress,
            pages,
            executor,
            weak_sandbox,
            boxes,
            started,
        )
        with run.stack:
            for stage in STAGES:
                stage(run)
        return run.summary
    finally:
        _close(boxes)


def _close(sandboxes: list[Sandbox]) -> None:
    """Close every sandbox of the list and empty it (for one handed to a grading process, closing
    reaps its keeper and frees what this process claimed for it)."""
    while sandboxes:
        sandboxes.pop().close()
