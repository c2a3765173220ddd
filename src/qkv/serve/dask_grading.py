"""`qkv serve --executor dask --scheduler ADDRESS`: the grading processes hand each hand-in to the
Dask cluster the batch uses (its GradingPlugin on every worker), and keep the lease, the feedback
page and the commit here. The hand-in's files travel with the task, as the batch sends them."""

from __future__ import annotations

from qkv.content import loader
from qkv.course.config import Course
from qkv.errors import QkvError
from qkv.grade import dask_executor
from qkv.intake.submissions import with_files
from qkv.results.records import StudentResult
from qkv.serve.grading import Grader


class DaskGrader(Grader):
    def __init__(self, course: Course, scheduler: str):
        super().__init__(course, None)
        self.executor = dask_executor.DaskExecutor(scheduler)
        self.client = self.executor.connect()
        self.plugins = {}
        for a in course.assignments:
            plugin = dask_executor.GradingPlugin(course, a, loader.snapshot(course, a))
            try:
                self.client.register_plugin(plugin, name=plugin.name)
            except Exception as e:  # raised on a worker: a missing package, another version
                raise QkvError(
                    f"a Dask worker could not set up grading: {type(e).__name__}: {e}"
                ) from None
            self.plugins[a.id] = plugin.name

    def judge(self, ctx, sub) -> tuple[StudentResult, list[str]]:
        sub = with_files(self.course, ctx.assignment, sub)  # read here: workers share no disk
        future = self.client.submit(
            dask_executor.grade_on_worker, self.plugins[ctx.assignment.id], [sub], pure=False
        )
        graded, errors = future.result()
        return StudentResult.from_json(graded[0]), errors
