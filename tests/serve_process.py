"""`qkv serve` run as a real process on a free loopback port, for the tests that need one."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, read from /proc."""
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Server:
    def __init__(self, course: Path, data: Path, *, jobs: int = 1, db: str | None = None):
        self.course, self.data, self.jobs, self.db = course, data, jobs, db
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 120.0) -> Server:
        args = [sys.executable, "-m", "qkv.cli", "serve", "--course", str(self.course)]
        args += ["--data", str(self.data), "--port", str(self.port), "--jobs", str(self.jobs)]
        if self.db:
            args += ["--db", self.db]
        self.process = subprocess.Popen(
            args, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"}, stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"qkv serve exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError("qkv serve did not answer /api/health")

    def kill(self) -> set[int]:
        """SIGKILL the server alone; returns the processes it had started."""
        below = descendants(self.process.pid)
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        return below

    def stop(self) -> int:
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.terminate()
        try:
            return self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()
