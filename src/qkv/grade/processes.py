"""How many grading processes a run uses, and their sandboxes, started before anything else.

A run with few submissions is graded in the grading command's own process (a grading process costs
about as much to start as grading STUDENTS_PER_PROCESS students). A sandbox's zygote, a fresh
interpreter that imports numpy, is the slowest thing to start: the command starts every grading
process's sandbox first thing, before loading the rest of itself, so that they are warm by the time
the first students need them. This module imports nothing heavy for that reason.
"""

from __future__ import annotations

import os
from pathlib import Path

from qkv.course.layout import submissions_root
from qkv.sandbox.host import Sandbox

STUDENTS_PER_PROCESS = 16


def default_jobs(students: int) -> int:
    """All cores, but a grading process pays for its start-up only with enough students to share."""
    return min(os.cpu_count() or 1, -(-students // STUDENTS_PER_PROCESS))


def early_sandboxes(course, submissions: Path, assignment: str, jobs: int | None) -> list:
    """The sandboxes of the run's grading processes, started now.

    One per process the run looks like it will use, judged by the entries of the submissions folder;
    none when the folder is not there. A run graded in this process uses the first; a run with several
    grading processes hands one to each as it forks them (Sandbox.hand_over), and closes any the run
    turns out not to need.

    Args:
        course: the course, for the sandboxes' limits and packages.
        submissions: the submissions folder.
        assignment: the assignment's id.
        jobs: --jobs, or None for the default.

    Returns:
        The started sandboxes.
    """

    try:
        entries = sum(
            1
            for e in os.scandir(submissions_root(submissions, assignment))
            if not e.name.startswith(".")
        )
    except OSError:
        return []  # grading says what is wrong with the folder
    count = min(jobs if jobs is not None else default_jobs(entries), entries)
    started: list = []
    try:
        for _ in range(count):
            started.append(Sandbox(course.limits, packages=course.packages))
    except BaseException:
        for sandbox in started:
            sandbox.close()
        raise
    return started
