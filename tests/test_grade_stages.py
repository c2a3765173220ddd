"""`qkv grade` is a declared pipeline: STAGES in order over one Run, each stage doing its part."""

from pathlib import Path

import pytest

from course_content import CONTENT
from qkv.errors import QkvError
from qkv.grade import batch
from qkv.validate import synthetic


def test_stages_run_in_this_order():
    assert [s.__name__ for s in batch.STAGES] == [
        "check_run_options",
        "start_sandboxes",
        "load_content",
        "discover",
        "plan_processes",
        "grade_chunks",
        "check_complete",
        "select_handins",
        "write_outputs",
    ]


def _run(course, subs: Path, out: Path) -> batch.Run:
    return batch.Run(
        course,
        course.assignment("attention"),
        subs,
        out,
        jobs=1,
        force=False,
        progress=False,
        pages=False,
        executor=None,
        weak_sandbox=True,
        sandboxes=[],
    )


def test_the_stages_before_grading_plan_the_class_and_write_no_result(tmp_path, course):
    subs = tmp_path / "subs"
    students = synthetic.write_class(CONTENT, subs, kinds=["honest_reference", "stub"])
    run = _run(course, subs, tmp_path / "out")
    upto = batch.STAGES.index(batch.grade_chunks)
    try:
        with run.stack:
            for stage in batch.STAGES[:upto]:
                stage(run)
            assert run.plan is not None
            assert sorted(run.plan.students) == sorted(students)
            assert run.plan.todo == len(students)
    finally:
        for sandbox in run.sandboxes:
            sandbox.close()
    assert not any((tmp_path / "out" / "results").iterdir())
    assert not (tmp_path / "out" / "gradebook.csv").exists()


def test_a_run_stops_at_the_first_stage_that_refuses(tmp_path, course):
    out = tmp_path / "out"
    out.write_text("a file, not a folder")
    run = _run(course, tmp_path, out)
    with pytest.raises(QkvError, match="is a file"):
        batch.STAGES[0](run)
    assert run.plan is None and not run.sandboxes
