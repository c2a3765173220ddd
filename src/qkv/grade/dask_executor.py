"""Grading over a Dask distributed cluster: the local executor's contract, on other machines.

The client (the machine running `qkv grade`) discovers and reads the submissions, ships each chunk's
file contents with its task, and writes every result it gets back with `results.write`, so no
filesystem is shared. Each Dask worker process builds one grading context (the assignment's content, a sandbox
with its own slot, the extra tests) when the grading plugin is registered, keeps it on the worker
for every chunk of the run, and tears it down when the run ends.

More in docs/internals/grading.md.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import tempfile
import threading
import uuid
from pathlib import Path

from qkv import __version__
from qkv.content import loader
from qkv.course.config import Assignment, Course
from qkv.errors import QkvError
from qkv.grade.local import make_context
from qkv.intake.submissions import Submission, with_files
from qkv.results import records as results
from qkv.sandbox.host import Sandbox
from qkv.suites.plugin import run_suites

try:
    import distributed
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:
    raise QkvError(
        "the Dask executor needs the optional extra: pip install 'qkv-kit[dask]'"
    ) from None

CONNECT_TIMEOUT_S = 10.0


class GradingPlugin(WorkerPlugin):
    """Built on the client, set up in every worker process: one grading context per worker."""

    def __init__(self, course: Course, assignment: Assignment, files: dict[str, bytes]):
        self.course = course
        self.assignment_id = assignment.id
        self.files = files  # the assignment's content folder and quiz (loader.snapshot)
        self.version = __version__
        self.name = f"qkv-grading-{uuid.uuid4().hex[:12]}"

    async def setup(self, worker) -> None:
        # Starting the sandbox takes a moment; keep the worker's event loop (and heartbeats) free.
        await asyncio.to_thread(self._build)

    def _build(self) -> None:
        if self.version != __version__:
            raise RuntimeError(f"this worker has qkv-kit {__version__}, the client {self.version}")
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
        self.folder = tempfile.TemporaryDirectory(prefix="qkv-course-")
        loader.unpack(self.files, Path(self.folder.name))
        course = dataclasses.replace(self.course, root=Path(self.folder.name))
        self.ctx = make_context(
            course,
            course.assignment(self.assignment_id),
            Sandbox(course.limits, packages=course.packages),
        )  # claims a slot
        assert self.ctx.sandbox is not None
        self.isolation = self.ctx.sandbox.layers.describe()
        self.lock = threading.Lock()  # one sandbox serves one submission at a time

    def teardown(self, worker) -> None:
        ctx = getattr(self, "ctx", None)
        if ctx is not None:
            ctx.sandbox.close()  # and frees its slot
        folder = getattr(self, "folder", None)
        if folder is not None:
            folder.cleanup()

    def grade(self, chunk: list[Submission]) -> tuple[list[dict], list[str]]:
        got: list[dict] = []
        with self.lock:
            errors = run_suites(self.ctx, chunk, lambda result: got.append(result.to_json()))
        return got, errors


def grade_on_worker(plugin_name: str, chunk: list[Submission]) -> tuple[list[dict], list[str]]:
    """The task: grade a chunk with this worker's context; results as their JSON dicts."""
    plugin = distributed.get_worker().plugins[plugin_name]
    assert isinstance(plugin, GradingPlugin)
    return plugin.grade(chunk)


def _worker_isolation(plugin_name: str, dask_worker=None) -> str:
    return dask_worker.plugins[plugin_name].isolation


class DaskExecutor:
    """An executor for `grade.grade`: chunks as tasks on the cluster at `scheduler`.

    Args:
        scheduler: the scheduler's address, e.g. tcp://10.0.0.5:8786.
        window: chunks in flight per worker thread (workers that join later count too); bounds
            what the client holds in memory.
        timeout_s: how long to wait for the scheduler, and for a first worker.
    """

    def __init__(self, scheduler: str, *, window: int = 2, timeout_s: float | None = None):
        self.scheduler = scheduler
        self.window = window
        self.timeout_s = CONNECT_TIMEOUT_S if timeout_s is None else timeout_s
        self.isolation = ""  # the workers' isolation, once a run has set them up

    def connect(self):
        try:
            client = distributed.Client(
                self.scheduler, timeout=self.timeout_s, set_as_default=False
            )
        except (OSError, TimeoutError, ValueError) as e:
            raise QkvError(f"cannot reach the Dask scheduler at {self.scheduler}: {e}") from None
        try:
            client.wait_for_workers(1, timeout=self.timeout_s)
        except (OSError, TimeoutError) as e:
            client.close()
            raise QkvError(f"the Dask scheduler at {self.scheduler} has no workers ({e})") from None
        return client

    def __call__(self, course: Course, assignment: Assignment, chunks, out: Path, jobs: int):
        """Yield (students done, errors) per chunk as workers finish them."""
        if not chunks:  # everyone was graded before: no need for a cluster
            return
        content = loader.load(course, assignment)
        _ = content.reference  # a broken reference fails here, once, rather than on every worker
        client = self.connect()
        plugin = GradingPlugin(course, assignment, loader.snapshot(course, assignment))
        try:
            try:
                client.register_plugin(plugin, name=plugin.name)
            except (
                Exception
            ) as e:  # raised on a worker: a missing package, another version, no sandbox
                raise QkvError(
                    f"a Dask worker could not set up grading: {type(e).__name__}: {e}"
                ) from None
            self.isolation = "; ".join(
                sorted(set(client.run(_worker_isolation, plugin.name).values()))
            )
            yield from self._run(client, plugin.name, course, assignment, chunks, out)
        finally:
            try:
                client.unregister_worker_plugin(plugin.name)
            except Exception:
                pass
            client.close()

    def _run(
        self, client, plugin_name: str, course: Course, assignment: Assignment, chunks, out: Path
    ):
        pending = iter(chunks)
        running = distributed.as_completed(loop=client.loop)

        def fill() -> None:
            target = max(1, self.window * sum(client.nthreads().values()))
            while running.count() < target:
                chunk = next(pending, None)
                if chunk is None:
                    return
                # Read here, on the client: workers see no shared disk.
                running.add(
                    client.submit(
                        grade_on_worker,
                        plugin_name,
                        [with_files(course, assignment, s) for s in chunk],
                        pure=False,
                    )
                )

        fill()
        for future in running:
            fill()
            try:
                graded, errors = future.result()
            except (
                Exception
            ) as e:  # a worker died (e.g. KilledWorker): those students stay ungraded
                yield [], [f"a Dask task failed: {type(e).__name__}: {e}"]
                continue
            done = []
            for data in graded:
                result = results.StudentResult.from_json(data)
                results.write(result, out)
                done.append(result.student)
            yield done, errors
