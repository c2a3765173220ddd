"""What a run grades, and why: the class read in one pass, each hand-in's reuse decided, and the
hand-ins kept on disk until they are graded.

The command holds a name per student (and a few numbers), not a submission: the hand-ins wait on
disk (an on_disk.Spool), read back a chunk at a time for the grading processes, then once more to
check that each has its result.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from qkv.course import layout
from qkv.errors import QkvError
from qkv.grade import handins, reuse
from qkv.intake.discover import each_submission
from qkv.intake.submissions import Submission
from qkv.results import on_disk

CHUNK = 20  # students per task handed to a grading process: small enough that the processes finish together


class Plan(on_disk.Spool):
    """The run's hand-ins, in order, each with why it is graded ('' when its result is reused)."""

    def __init__(self, folder: Path):
        super().__init__(folder)
        self.students: list[str] = []  # every student with a submission, in order
        self.regraded: dict[str, list[str]] = defaultdict(
            list
        )  # reuse.REASONS key -> keys graded for it
        self.count = 0  # hand-ins planned
        self.todo = 0  # of them to grade

    def add(self, sub: Submission, reason: str) -> None:
        if not self.students or self.students[-1] != sub.student:
            self.students.append(sub.student)
        self.count += 1
        if reason:
            self.todo += 1
            self.regraded[reason].append(sub.key)
        self.append((sub, reason))

    def each(self):
        """(hand-in, why it is graded) of every hand-in, in order, read back a batch at a time."""
        return iter(self)

    def to_grade(self):
        return (sub for sub, reason in self.each() if reason)

    def chunks(self, jobs: int) -> Chunks:
        return Chunks(self, jobs)


class Chunks:
    """The tasks, in order: at most CHUNK students each (fewer in a small class, so every process has
    about 16), then smaller and smaller towards the end, down to one student, so that the processes
    run out of work within a student or two of each other rather than a whole chunk apart. Read from
    the plan as they are handed out."""

    def __init__(self, plan: Plan, jobs: int):
        self._plan, self._sizes = plan, sizes(plan.todo, jobs)

    def __len__(self) -> int:
        return len(self._sizes)

    def __iter__(self):
        subs = self._plan.to_grade()
        for size in self._sizes:
            yield [next(subs) for _ in range(size)]


def sizes(todo: int, jobs: int) -> list[int]:
    """The number of students in each chunk (see Chunks)."""
    cap = max(1, min(CHUNK, -(-todo // (jobs * 16))))
    chunks, start = [], 0
    while start < todo:
        size = max(1, min(cap, (todo - start) // (jobs * 4)))
        chunks.append(size)
        start += size
    return chunks


def make(course, a, submissions: Path, out: Path, force: bool, skipped: list[str]) -> Plan:
    """Read the class under `submissions` and plan its run.

    Args:
        course: the course.
        a: the assignment.
        submissions: the submissions folder.
        out: the output folder, whose earlier results may be reused.
        force: regrade everyone.
        skipped: where discovery's lines on skipped entries go.

    Returns:
        The plan, a context manager whose spool is removed on exit.

    Raises:
        QkvError: the folder holds no submission.
    """
    shared = reuse.run_inputs(course, a)
    plan = Plan(out)
    try:
        found = each_submission(submissions, layout.submission_files(a), a.id, skipped)
        for sub in handins.to_grade(found, course.resubmissions):
            inputs = reuse.inputs_of(course, sub, shared)
            record = {"handin": sub.handin, "submitted_at": sub.submitted_at, "inputs": inputs}
            sub = replace(sub, record={k: v for k, v in record.items() if v})
            plan.add(sub, "force" if force else reuse.why(reuse.stored_inputs(out, sub), inputs))
    except BaseException:
        plan.close()
        raise
    if not plan.count:
        plan.close()
        why = f" ({len(skipped)} entries skipped, first: {skipped[0]})" if skipped else ""
        raise QkvError(
            f"{submissions}: no submissions to grade (folders named by student id holding "
            f"{' or '.join(layout.submission_files(a))}, or such files named by student id){why}"
        )
    plan.regraded = {k: plan.regraded[k] for k in reuse.REASONS if k in plan.regraded}
    return plan
