"""How many grading processes a run uses, and the sandbox of a run graded in one process.

A run with few submissions is graded in the grading command's own process (a grading process costs
about as much to start as grading STUDENTS_PER_PROCESS students). Its sandbox's zygote, a fresh
interpreter that imports numpy, is the slowest thing to start: the command starts it first thing,
before loading the rest of itself, so that it is warm by the time the first student needs it.
This module imports nothing heavy for that reason.
"""
from __future__ import annotations

import os
from pathlib import Path

STUDENTS_PER_PROCESS = 16


def default_jobs(students: int) -> int:
    """All cores, but a grading process pays for its start-up only with enough students to share."""
    return min(os.cpu_count() or 1, -(-students // STUDENTS_PER_PROCESS))


def one_process(jobs: int | None, submissions: int) -> bool:
    """Whether a run with about this many submissions is graded in the command's own process."""
    return (jobs if jobs is not None else default_jobs(submissions)) <= 1


def early_sandbox(course, submissions: Path, assignment: str, jobs: int | None):
    """The sandbox for a run that looks like one graded in this process (judged by the entries of
    the submissions folder), started now; None otherwise, or when the folder is not there."""
    from autograder.grading.submissions import submissions_root  # noqa: PLC0415 - imports numpy
    from autograder.sandbox.host import Sandbox  # noqa: PLC0415
    try:
        entries = sum(1 for e in os.scandir(submissions_root(submissions, assignment)) if not e.name.startswith("."))
    except OSError:
        return None  # grading says what is wrong with the folder
    return Sandbox(course.limits, packages=course.packages) if one_process(jobs, entries) else None
