"""SIGKILL of `qkv grade` mid-run: 5 s later, nothing it started is left (processes, folders, IPC, keys)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from leftovers import kernel_keys, leftovers, require_strong_sandbox

ROOT = Path(__file__).resolve().parent.parent
# Loads, leaves setsid daemons behind, then loops: at any moment of the run a sandbox holds processes.
STUBBORN = """\
import os, time
for _ in range(3):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(3600)
        os._exit(0)
while True:
    pass
"""


def _descendants(root: int) -> dict[int, str]:
    """Every process below `root`, by pid, with its start time (so a reused pid is not mistaken for it)."""
    parents = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            parents[int(proc.name)] = (int(fields[1]), fields[19])
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        for child, (ppid, started) in parents.items():
            if ppid == pid and child not in found:
                found[child] = started
                todo.append(child)
    return found


def _alive(pid: int, started: str) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]) == started
    except OSError:
        return False


def test_sigkill_of_qkv_grade_leaves_nothing_running_5_s_later(tmp_path):
    require_strong_sandbox()
    subs = tmp_path / "subs"
    for i in range(8):
        (subs / f"s{i}").mkdir(parents=True)
        (subs / f"s{i}" / "attention.py").write_text(STUBBORN)
    started, keys = time.time(), kernel_keys()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "qkv.cli",
            "grade",
            str(subs),
            "--out",
            str(tmp_path / "out"),
            "--jobs",
            "2",
            "--quiet",
            "--course",
            str(ROOT / "course.yaml"),
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: dict[int, str] = {}
    for _ in range(600):  # until the sandboxes hold submissions' processes (their daemons included)
        seen.update(_descendants(proc.pid))
        if len(seen) >= 10 or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert proc.poll() is None, "the run ended before it could be killed"
    seen.update(_descendants(proc.pid))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(5)
    survivors = [pid for pid, when in seen.items() if _alive(pid, when)]
    assert survivors == [], [
        Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in survivors if _alive(p, seen[p])
    ]
    assert leftovers(since=started, keys_before=keys) == []
