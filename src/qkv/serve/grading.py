"""Grading one stored hand-in as `qkv grade` grades a submission folder, in a warm process.

A Grader holds, per assignment, the batch's grading context (content, collected suites, quiz) and
one sandbox for them all, made once when the grading process starts. A hand-in is laid out as a
submission folder (its files, and timestamp.txt with the server's time), discovered by the batch's
own discovery, graded by its suites and written as its results.json and feedback page.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from qkv.course import layout
from qkv.course.config import Course
from qkv.errors import QkvError
from qkv.grade import reuse
from qkv.grade.local import make_context
from qkv.intake.discover import discover
from qkv.reports.outputs import PerStudent
from qkv.results import overrides as overrides_mod
from qkv.results.records import StudentResult, strict_json
from qkv.sandbox.host import Sandbox
from qkv.serve import store
from qkv.suites.plugin import collect, run_suites


@dataclass(frozen=True)
class Graded:
    """What a grading gives the database: the result as the student's results.json, its page."""

    result: StudentResult
    page: str
    errors: list[str]

    @property
    def json(self) -> str:
        return strict_json(self.result.to_json())


class Grader:
    """The batch's engine for every assignment of the course, kept warm between hand-ins."""

    def __init__(self, course: Course, sandbox: Sandbox | None):
        self.course = course
        self.sandbox = sandbox
        self._contexts: dict = {}

    def warm(self) -> None:
        for assignment in self.course.assignments:
            self._context(assignment.id)

    def _context(self, assignment_id: str):
        if assignment_id not in self._contexts:
            a = self.course.assignment(assignment_id)
            ctx = make_context(self.course, a, self.sandbox)
            collect(ctx)
            pages = PerStudent(self.course, a, Path(tempfile.gettempdir()), pages=True)
            self._contexts[assignment_id] = (ctx, pages, reuse.run_inputs(self.course, a))
        return self._contexts[assignment_id]

    def submission(self, folder: Path, assignment_id: str):
        """The batch's Submission for the one student folder under `folder`, its record filled in."""
        a = self.course.assignment(assignment_id)
        subs, _ = discover(folder, layout.submission_files(a), a.id)
        if len(subs) != 1:
            raise QkvError(f"the hand-in was read as {len(subs)} submissions, not one")
        sub = subs[0]
        inputs = reuse.inputs_of(self.course, sub, self._context(assignment_id)[2])
        record = {"submitted_at": sub.submitted_at, "inputs": inputs}
        return dataclasses.replace(sub, record={k: v for k, v in record.items() if v})

    def judge(self, ctx, sub) -> tuple[StudentResult, list[str]]:
        """The suites' result for one submission, graded in this process's sandbox."""
        got: list[StudentResult] = []
        errors = run_suites(ctx, [sub], got.append)
        return got[0], errors

    def grade(
        self,
        uploads: Path,
        student: str,
        assignment_id: str,
        submitted_at: str,
        files,
        adjustments=(),
    ):
        """Grade a hand-in of `student` (files as (name, digest) pairs in `uploads`), applying the
        course's overrides file and then the staff's `adjustments` (overrides.Override).

        Args:
            uploads: the folder of stored uploads.
            student: the student's id.
            assignment_id: the assignment handed in to.
            submitted_at: the hand-in time, as the batch writes it.
            files: (name, digest) pairs of the hand-in's files.
            adjustments: staff adjustments (overrides.Override) applied after the course's.
        """
        ctx, pages, _ = self._context(assignment_id)
        with tempfile.TemporaryDirectory(prefix="qkv-handin-") as tmp:
            folder = Path(tmp) / student
            store.lay_out(uploads, files, folder)
            (folder / layout.TIMESTAMP_FILE).write_text(submitted_at + "\n", encoding="utf-8")
            sub = self.submission(Path(tmp), assignment_id)
            graded, errors = self.judge(ctx, sub)
        result = overrides_mod.apply(graded, (*pages.adjust, *adjustments), ctx.assignment)
        # The page is drawn from the result as written, as the batch draws it (records.Written).
        result = StudentResult.from_json(json.loads(strict_json(result.to_json())))
        pages.errors = []
        page = pages.page(result)
        return Graded(result, page, errors + pages.errors)
