"""A grading process: `python -m qkv.serve.worker SETTINGS_JSON`, started by the serving process.

It starts its sandbox first (a clean zygote, before any reference is loaded), warms the batch's
engine for every assignment, says `ready` on stdout, then leases jobs until told to stop. A byte on
stdin wakes it when a job is queued; SIGTERM lets it finish the hand-in it holds and go. It dies
with its parent, so a killed server leaves no grading process behind.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
from pathlib import Path

from sqlalchemy import select as sql_select

from qkv.course.config import load_course
from qkv.sandbox import isolation
from qkv.serve import adjust, queue
from qkv.serve import db as db_mod
from qkv.serve.models import Submission, SubmissionFile

IDLE_S = 1.0  # without a wake-up, look at the queue this often


class Worker:
    def __init__(self, engine, uploads: Path, grader, owner: str):
        self.engine, self.uploads, self.grader, self.owner = engine, uploads, grader, owner
        self.stopping = False

    def _hand_in(self, submission_id: str):
        with self.engine.connect() as connection:
            row = connection.execute(
                sql_select(
                    Submission.student, Submission.assignment, Submission.submitted_at
                ).where(Submission.id == submission_id)
            ).one()
            adjustments = adjust.overrides(
                connection, self.grader.course.assignment(row[1]), row[0]
            )
            files = connection.execute(
                sql_select(SubmissionFile.name, SubmissionFile.digest)
                .where(SubmissionFile.submission_id == submission_id)
                .order_by(SubmissionFile.id)
            ).all()
        return row, [tuple(f) for f in files], adjustments

    def one(self) -> bool:
        """Grade one job if there is one; whether there was."""
        leased = queue.lease(self.engine, self.owner)
        if leased is None:
            return False
        job_id, submission_id = leased
        beat = threading.Event()
        heart = threading.Thread(target=self._heartbeat, args=(job_id, beat), daemon=True)
        heart.start()
        try:
            (student, assignment, submitted_at), files, adjustments = self._hand_in(submission_id)
            graded = self.grader.grade(
                self.uploads, student, assignment, submitted_at, files, adjustments
            )
            values = {
                "status": "graded",
                "score": graded.result.total,
                "result": graded.json,
                "page": graded.page,
                "error": "; ".join(graded.errors)[:2000],
            }
        except Exception as e:  # the grader could not grade it: said in one line, a regrade retries
            values = {"status": "failed", "error": f"{type(e).__name__}: {e}".splitlines()[0][:500]}
        finally:
            beat.set()
            heart.join()
        queue.complete(self.engine, job_id, self.owner, submission_id, **values)
        return True

    def _heartbeat(self, job_id: int, done: threading.Event) -> None:
        while not done.wait(queue.HEARTBEAT_S):
            try:
                if not queue.renew(self.engine, job_id, self.owner):
                    return
            except Exception:  # the database is busy or away: the next beat tries again
                continue

    def loop(self, wake_fd: int) -> None:
        while not self.stopping:
            if self.one():
                continue
            ready, _, _ = select.select([wake_fd], [], [], IDLE_S)
            if ready and not os.read(wake_fd, 4096):
                return  # the server closed our stdin: it is going away


def main(argv: list[str]) -> int:
    options = json.loads(argv[0])
    isolation.die_with_parent(signal.SIGKILL, parent=options["parent"])
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    course = load_course(options["course"])
    grader = _grader(course, options)
    engine = db_mod.engine_for(options["db"])
    owner = queue.owner_name(options["parent"], str(os.getpid()))
    worker = Worker(engine, Path(options["uploads"]), grader, owner)

    def stop(_signum, _frame) -> None:
        worker.stopping = True

    signal.signal(signal.SIGTERM, stop)
    print("ready", flush=True)
    worker.loop(sys.stdin.fileno())
    return 0


def _grader(course, options):
    if options.get("executor") == "dask":
        from qkv.serve import dask_grading  # noqa: PLC0415 - only with --executor dask

        grader = dask_grading.DaskGrader(course, options["scheduler"])
        grader.warm()
        return grader
    from qkv.sandbox.host import Sandbox  # noqa: PLC0415 - started before the content loads
    from qkv.serve.grading import Grader  # noqa: PLC0415

    sandbox = Sandbox(course.limits, packages=course.packages)
    grader = Grader(course, sandbox)
    grader.warm()
    return grader


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
