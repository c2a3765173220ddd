"""Grading on this machine: the trusted state of a grading process, and a pool of them.

Each grading process (one per job) loads the reference, owns one sandbox zygote and runs the hidden
suites on its chunks, writing results/<student>.json atomically as each student finishes.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import multiprocessing
import multiprocessing.util
import os
import signal
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from qkv.content import loader
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.intake.submissions import Submission, answers_source
from qkv.quiz import grading as quiz
from qkv.reports import outputs
from qkv.results import records as results
from qkv.results.records import StudentResult
from qkv.sandbox import isolation
from qkv.sandbox.host import Sandbox
from qkv.suites.plugin import collect, run_suites
from qkv.suites.runner import GradingContext

# Chunks handed to the pool per grading process at a time: the rest wait in the plan, on disk.
IN_FLIGHT = 4


def extra_tests_for(course: Course, assignment: Assignment, content):
    """Tests graded outside the suites for each submission (the quiz), or None.

    Args:
        course: the course.
        assignment: the assignment.
        content: its content, whose reference the quiz's numbers come from.

    Returns:
        extra_tests(submission) -> the quiz's TestResults, or None without a quiz.
    """
    if not assignment.quiz:
        return None

    master = quiz.load_quiz(course, assignment)
    return lambda sub: quiz.grade_answers(
        course,
        assignment,
        sub.student,
        answers_source(course, sub),
        content.reference,
        master=master,
    )


def make_context(course: Course, assignment: Assignment, sandbox: Sandbox | None) -> GradingContext:
    """The trusted state one grading process keeps for all its chunks.

    Args:
        course: the course.
        assignment: the assignment.
        sandbox: the process's sandbox, or None when it comes later.

    Returns:
        The context, its suites not yet collected.
    """
    content = loader.load(course, assignment)
    return GradingContext(
        course, assignment, content, sandbox, extra_tests_for(course, assignment, content)
    )


def grade_chunk(ctx: GradingContext, chunk: list[Submission], out: Path, shares=None):
    """Grade one chunk in this (trusted) process.

    With `shares`, each student's share of the run's outputs (their feedback page, gradebook row and
    brief) is done here too, from the result as written, for students with a single hand-in (of
    several, the one that counts is chosen once all are graded).

    Args:
        ctx: the process's grading context.
        chunk: the submissions to grade.
        out: the output folder.
        shares: an outputs.PerStudent, or None.

    Returns:
        (students done, grader errors, their shares by student).
    """
    done, done_shares = [], {}

    def on_result(result: StudentResult) -> None:
        written = results.write(result, out)
        done.append(result.student)
        if shares is not None and not result.extra.get(
            "handin"
        ):  # as a later pass would read it back
            done_shares[result.student] = shares(written.read_back())

    errors = run_suites(ctx, chunk, on_result)
    if shares is not None:
        errors, shares.errors = errors + shares.errors, []
    return done, errors, done_shares


@dataclass
class GradingProcess:
    """What a grading process keeps for the whole run: the context with the suites collected, and
    its students' share of the outputs."""

    ctx: GradingContext
    shares: outputs.PerStudent

    @classmethod
    def load(
        cls,
        course: Course,
        assignment: Assignment,
        out: Path,
        pages: bool,
        sandbox: Sandbox | None = None,
    ) -> GradingProcess:
        """Load the content, collect the suites, then freeze the collector.

        Once it is loaded, the collector need never walk it again (each student's garbage is a small
        fraction of it), nor, in a grading process forked from this one, write to (and so copy) the
        pages it shares with its parent.

        Args:
            course: the course.
            assignment: the assignment graded.
            out: where the run writes.
            pages: whether the run writes feedback pages.
            sandbox: the process's sandbox, or None when it comes later.

        Returns:
            The process's state.
        """
        ctx = make_context(course, assignment, sandbox)
        collect(ctx)
        shares = outputs.PerStudent(course, assignment, out, pages=pages)
        gc.freeze()
        return cls(ctx, shares)

    def grade(self, chunk: list[Submission], out: Path):
        return grade_chunk(self.ctx, chunk, out, self.shares)


# A pool calls module-level functions only: its initializer keeps the grading process's state here,
# in that process alone (the process running the pool never sets it).
_in_this_process: list[GradingProcess] = []


def _start_grading_process(
    parent: int,
    course: Course,
    assignment_id: str,
    out: Path,
    pages: bool,
    inherited: GradingProcess | None,
    early: list[Sandbox],
    tokens: int | None,
) -> None:
    # A grading process ends with the run, however the run ends (SIGKILL included); so do its zygote
    # (which dies with it, or with the command that started it) and everything that zygote started.
    isolation.die_with_parent(signal.SIGKILL, parent=parent)
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    sandbox = _take_one(early, tokens)
    if sandbox is None:  # it claims a free slot until it closes
        sandbox = Sandbox(course.limits, packages=course.packages)
    # Pool processes end through multiprocessing's exit path, which runs Finalize but not atexit.
    multiprocessing.util.Finalize(sandbox, sandbox.close, exitpriority=10)
    # A fresh interpreter (not forked) loads what a forked one inherits.
    state = inherited or GradingProcess.load(course, course.assignment(assignment_id), out, pages)
    state.ctx.sandbox = sandbox
    _in_this_process.append(state)


def _take_one(early, tokens: int | None) -> Sandbox | None:
    """The sandbox the command started for this grading process: the one whose number this process
    read first from `tokens` (a pipe holding one byte per sandbox), or None when none is left."""
    if not early:
        return None
    assert tokens is not None, "a pipe comes with the sandboxes"
    token = os.read(tokens, 1)
    os.close(tokens)
    mine = early[token[0]] if token else None
    for sandbox in early:
        if sandbox is not mine:
            sandbox.hand_over()  # another grading process's: this one must not hold its socket open
    if mine is not None:
        mine.take_over()
    return mine


def _grade_in_this_process(chunk: list[Submission], out: Path):
    return _in_this_process[0].grade(chunk, out)


def run_local(
    course: Course,
    assignment: Assignment,
    chunks,
    out: Path,
    jobs: int,
    *,
    pages: bool = True,
    sandboxes=(),
):
    """Grade the chunks in processes on this machine, yielding each chunk's outcome as it is done.

    With one job, grading is done in this process with the first sandbox; with several, each grading
    process takes one (or starts its own).

    Args:
        course: the course.
        assignment: the assignment.
        chunks: the plan's chunks of submissions.
        out: the output folder.
        jobs: grading processes.
        pages: whether feedback pages are written.
        sandboxes: started by the caller (processes.early_sandboxes), who closes them.

    Returns:
        An iterator of (students done, errors, their shares of the outputs) per chunk.

    Raises:
        QkvError: a grading process ended abruptly (the results written so far are kept).
    """
    if jobs <= 1:
        with (
            contextlib.nullcontext(sandboxes[0])
            if sandboxes
            else Sandbox(course.limits, packages=course.packages) as box
        ):
            state = GradingProcess.load(course, assignment, out, pages, box)
            for chunk in chunks:
                yield state.grade(chunk, out)
        return
    # Forked from this process once it holds what every grading process needs (the content, the
    # collected suites, the quiz), they start in milliseconds with nothing to load, and each takes over
    # one of the sandboxes started first thing (a zygote is a fresh interpreter as ever), or starts its
    # own. With other threads running here (a fork copies none of them, nor what they were in the
    # middle of), each starts afresh instead, sandbox included.
    fork = threading.active_count() == 1
    # Forked processes inherit it as it is; spawned ones load their own.
    inherited = GradingProcess.load(course, assignment, out, pages) if fork else None
    mp = multiprocessing.get_context("fork" if fork else "spawn")
    early, tokens = (list(sandboxes), os.pipe()) if fork and sandboxes else ([], None)
    if tokens:
        os.write(tokens[1], bytes(range(len(early))))
        os.close(tokens[1])
    try:
        with ProcessPoolExecutor(
            jobs,
            mp_context=mp,
            initializer=_start_grading_process,
            initargs=(
                os.getpid(),
                course,
                assignment.id,
                out,
                pages,
                inherited,
                early,
                tokens and tokens[0],
            ),
        ) as pool:
            chunks = iter(chunks)
            in_flight = {
                pool.submit(_grade_in_this_process, chunk, out)
                for chunk in itertools.islice(chunks, jobs * IN_FLIGHT)
            }
            for sandbox in early:  # every grading process is forked by the first submit
                sandbox.hand_over()
            while in_flight:
                finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished:
                    try:
                        done = future.result()
                    except BrokenProcessPool:
                        raise QkvError(
                            "a grading process ended abruptly (killed from outside, or out of memory); the "
                            "results written so far are kept: run the same command again to grade the rest"
                        ) from None
                    in_flight.update(
                        pool.submit(_grade_in_this_process, chunk, out)
                        for chunk in itertools.islice(chunks, 1)
                    )
                    yield done
    finally:
        if tokens:
            os.close(tokens[0])
