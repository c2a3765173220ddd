"""The serving process's grading processes: started warm, woken when a job is queued, stopped last.

Each is a fresh interpreter (`python -m qkv.serve.worker`), so its sandbox's zygote starts clean; a
stop lets each finish the hand-in it holds for up to GRACE_S, then ends it and puts what it held
back in the queue for the next start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

from qkv.errors import QkvError
from qkv.serve import queue
from qkv.serve.service import Service

GRACE_S = 30.0
START_S = 120.0  # a grading process that is not ready by then is not going to be


class Pool:
    def __init__(self, service: Service, jobs: int):
        self.service = service
        self.jobs = max(1, jobs)
        self.processes: list[subprocess.Popen] = []
        self._lock = threading.Lock()

    def _options(self) -> str:
        settings = self.service.settings
        return json.dumps(
            {
                "parent": os.getpid(),
                "course": str(self.service.course.root / "course.yaml")
                if settings.course is None
                else str(settings.course),
                "db": settings.database_url,
                "uploads": str(settings.uploads.resolve()),
                "executor": settings.executor,
                "scheduler": settings.scheduler,
            }
        )

    def start(self) -> None:
        """Start the grading processes and wait until each has warmed up."""
        options = self._options()
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
        for _ in range(self.jobs):
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "qkv.serve.worker", options],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    env=env,
                )
            )
        deadline = time.monotonic() + START_S
        for process in self.processes:
            assert process.stdout is not None
            line = process.stdout.readline() if time.monotonic() < deadline else b""
            if line.strip() != b"ready":
                self.stop()
                raise QkvError(
                    "a grading process did not start (its error is above); nothing is served"
                )

    def wake(self) -> None:
        with self._lock:
            for process in self.processes:
                try:
                    assert process.stdin is not None
                    process.stdin.write(b"\n")
                    process.stdin.flush()
                except (BrokenPipeError, ValueError, OSError):
                    pass

    def stop(self) -> None:
        """Let each finish its hand-in, end those that take longer, give back what they held."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
            try:
                if process.stdin is not None:
                    process.stdin.close()
            except OSError:
                pass
        deadline = time.monotonic() + GRACE_S
        for process in self.processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        queue.give_back(self.service.engine, queue.owner_name(os.getpid(), ""))
        self.processes = []
