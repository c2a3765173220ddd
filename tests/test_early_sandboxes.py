"""The grading command starts its grading processes' sandboxes first thing and hands one to each
grading process it forks: the same grades as sandboxes started by the grading processes, and nothing
left behind, whether the run uses every sandbox it started or not."""

import os
import subprocess
import sys
import time
from pathlib import Path

from course_content import CONTENT
from leftovers import kernel_keys, leftovers
from qkv.cli import main
from qkv.grade import processes
from qkv.grade.batch import grade
from qkv.validate import synthetic

ROOT = Path(__file__).resolve().parent.parent
KINDS = [
    "honest_reference",
    "honest_einsum",
    "mistake_softmax_no_max",
    "mistake_project_in_place",
    "stub",
    "broken_import_error",
]


def _keepers_of_this_process() -> list[int]:
    """Sandbox keepers this process started and has not reaped (a zombie counts)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (proc / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if ppid == os.getpid() and b"qkv.sandbox.zygote" in cmdline:
            found.append(int(proc.name))
    return found


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in ("run.json", "report.html")
    }


def test_sandboxes_handed_to_forked_grading_processes_grade_as_their_own_do(tmp_path, course):
    subs = tmp_path / "subs"
    synthetic.write_class(CONTENT, subs, 40, kinds=KINDS)
    started, keys = time.time(), kernel_keys()
    assert (
        main(
            [
                "grade",
                str(subs),
                "--out",
                str(tmp_path / "handed"),
                "--jobs",
                "2",
                "--quiet",
                "--course",
                str(ROOT / "course.yaml"),
            ]
        )
        == 0
    )
    assert _keepers_of_this_process() == []  # each keeper was reaped by the command that started it
    grade(course, subs, assignment="attention", out=tmp_path / "own", jobs=2, progress=False)
    assert _files(tmp_path / "handed") == _files(tmp_path / "own")
    assert leftovers(since=started, keys_before=keys) == []


def test_sandboxes_a_run_does_not_need_are_closed(tmp_path, course):
    subs = tmp_path / "subs"
    synthetic.write_class(CONTENT, subs, 40, kinds=KINDS)
    grade(course, subs, assignment="attention", out=tmp_path / "out", jobs=1, progress=False)
    started, keys = time.time(), kernel_keys()
    early = processes.early_sandboxes(course, subs, "attention", 2)
    assert len(early) == 2
    # every result is reused: the run grades nobody and needs neither sandbox
    summary = grade(
        course,
        subs,
        assignment="attention",
        out=tmp_path / "out",
        jobs=2,
        progress=False,
        sandboxes=early,
    )
    assert summary.graded == 0 and summary.reused == 40
    assert _keepers_of_this_process() == []
    assert leftovers(since=started, keys_before=keys) == []


def test_the_sandboxes_start_before_the_grader_imports_numpy(tmp_path):
    """Their zygotes import numpy while the command does: starting them must not wait for its import."""
    subs = tmp_path / "subs"
    synthetic.write_class(CONTENT, subs, 2, kinds=["honest_reference"])
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from qkv.course.config import load_course\n"
        "from qkv.grade import processes\n"
        f"course = load_course(Path({str(ROOT / 'course.yaml')!r}))\n"
        f"started = processes.early_sandboxes(course, Path({str(subs)!r}), 'attention', 2)\n"
        "print(len(started), 'numpy' in sys.modules)\n"
        "for sandbox in started:\n"
        "    sandbox.close()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    assert out.stdout.split() == ["2", "False"], out.stderr
