"""A grading process killed from outside ends the run with one line, and a rerun completes it."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from course_content import CONTENT
from leftovers import kernel_keys, leftovers
from qkv.validate import synthetic

ROOT = Path(__file__).resolve().parent.parent


def _children(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if (
                proc.name.isdigit()
                and int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid
            ):
                found.append(int(proc.name))
        except (OSError, ValueError):
            continue
    return found


def _cmdline(pid: int) -> bytes:
    """The process's command line, or nothing once it has ended (it may end while it is listed)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _grade(subs: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qkv.cli",
            "grade",
            str(subs),
            "--out",
            str(out),
            "--jobs",
            "2",
            "--quiet",
            "--course",
            str(ROOT / "course.yaml"),
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_killed_grading_process_is_one_line_and_a_rerun_completes_the_batch(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "out"
    synthetic.write_class(CONTENT, subs, 400, kinds=["honest_reference", "mistake_softmax_no_max"])
    started, keys = time.time(), kernel_keys()
    proc = _grade(subs, out)
    graders = []
    for _ in range(300):  # until the grading processes are forked and results come in
        graders = [p for p in _children(proc.pid) if b"qkv.cli" in _cmdline(p)]
        if graders and (out / "results").is_dir() and any((out / "results").iterdir()):
            break
        time.sleep(0.05)
    assert graders, "no grading process was seen"
    os.kill(graders[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert err.strip().count("\n") == 0 and "a grading process ended abruptly" in err, err
    again = _grade(subs, out)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert len(list((out / "results").glob("*.json"))) == 400
    assert leftovers(since=started, keys_before=keys) == []
