"""The measuring scripts still run (on tiny sizes): their figures are what the README and the notes quote."""

import os
import subprocess
import sys

from course_content import ROOT


def _run(*args) -> str:
    proc = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_bench_prints_the_ratio_to_a_cold_numpy_start():
    out = _run("scripts/bench.py", "--sizes", "2", "--repeat", "1", "--no-nbgrader")
    assert "cold numpy starts per submission" in out and "N=    2:" in out and "CPU" in out


def test_profile_grade_times_every_stage():
    out = _run("scripts/profile_grade.py", "--size", "3")
    for stage in (
        "plan:",
        "judge:",
        "sandbox: the batch of calls",
        "finish: the quiz",
        "CPU per student",
        "of which the zygote itself",
    ):
        assert stage in out


def test_bench_sandbox_measures_a_child():
    out = _run("scripts/bench_sandbox.py", "--cycles", "3", "--calls", "2", "--repeat", "1")
    assert "child CPU" in out and "minor faults" in out


def test_bench_file_creation_compares_fresh_and_just_deleted_folders():
    out = _run("scripts/bench_file_creation.py", "--students", "5", "--rounds", "1")
    assert "fresh folder 0:" in out and "same folder, just deleted 0:" in out


def test_bench_dask_projects_a_class_from_a_small_one():
    out = _run("scripts/bench_dask.py", "--size", "4", "--workers", "1", "--project", "100")
    assert "dask executor, 1 worker(s)" in out and "chunks of up to 20 students" in out


def test_demo_kernels_finds_the_gradebooks_identical_under_two_blas_kernels():
    out = _run("scripts/demo_kernels.py", "--size", "2", "--kernels", "Haswell,Prescott")
    assert "attention/graded/gradebook.csv: 2 students, identical under Haswell, Prescott" in out
    assert "training/graded/gradebook.csv: 2 students, identical" in out


def test_bench_serve_reports_times_as_cold_numpy_starts_and_loses_nothing():
    out = _run(
        "scripts/bench_serve.py",
        "--students",
        "3",
        "--sustained",
        "4",
        "--over",
        "1",
        "--jobs",
        "1",
    )
    assert "burst of 3 at once: 3 hand-ins, 3 graded, 0 lost" in out
    assert "sustained 4 over 1 s: 4 hand-ins, 4 graded, 0 lost" in out
    assert "cold numpy starts, p95" in out
