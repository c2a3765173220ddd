"""The trusted side of the sandbox: a warm zygote per grading process, one confined child per submission.

Student code never runs in this process. A Sandbox starts `qkv.sandbox.zygote` as a fresh
interpreter (so it holds no reference, suite or other student's data): a keeper that dies with this
process and runs the zygote, which forks one confined child per submission (see session.Session).
Each sandbox has one cgroup, holding nothing but the zygote before every submission joins it, and
one scratch folder for the submissions' files, made and removed by the keeper however this process ends.
Starting one imports nothing heavy (numpy comes with the first session): the grading command starts
its sandboxes before it loads the rest of itself.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from qkv.course.config import Limits
from qkv.errors import QkvError
from qkv.sandbox import folders, imports, isolation, slots
from qkv.sandbox.ops import Op, ZygoteGone

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
KEEPER_BOOT = (  # the keeper's whole command line: no path, no setting (those come on stdin)
    "import json, sys; s = json.loads(sys.stdin.buffer.readline()); "
    "sys.path.insert(0, s.pop('root')); from qkv.sandbox import zygote; zygote.main(s)"
)
SCRATCH_PREFIX = "qkv-sandbox-"
CONTROL_TIMEOUT_S = 30.0


@lru_cache(maxsize=1)
def layers() -> isolation.Layers:
    """The isolation layers this machine offers (probed once per process)."""
    return isolation.probe()


def missing_text(found: isolation.Layers) -> str:
    """'landlock, seccomp' and why they may be missing, for one-line messages."""
    return (
        f"{', '.join(found.missing)} (the full sandbox needs root, Landlock, cgroups v1 and seccomp on "
        "x86_64 or aarch64)"
    )


def runtime_paths(packages=("numpy",)) -> list[str]:
    """What a confined child may read: the standard library, the course's packages and the system's
    shared libraries. Nothing else of site-packages (in particular not this package)."""
    paths = {
        "/usr/lib",
        "/usr/lib64",
        "/lib",
        "/lib64",
        os.path.join(
            sys.base_prefix, "lib", f"libpython{sys.version_info[0]}.{sys.version_info[1]}.so.1.0"
        ),
    }
    paths.update(imports.stdlib_dirs())
    for name in packages:
        paths.update(imports.package_dirs(name))
    here = str(PACKAGE_ROOT) + os.sep
    return sorted(
        p for p in paths if os.path.exists(p) and not here.startswith(p.rstrip(os.sep) + os.sep)
    )


def check_packages(packages) -> None:
    """Every allowed package must be importable here, where the zygote imports it."""

    for name in packages:
        if (
            not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)
            or importlib.util.find_spec(name) is None
        ):
            raise QkvError(
                f"course.yaml: packages: '{name}' is not an installed top-level package here"
            )


def scratch_root(cgroups: bool) -> str:
    """Where submissions' folders go. With a memory cgroup, a tmpfs: what a submission writes there
    is charged to its memory limit, so it cannot fill the disk; else the temporary folder."""
    shm = "/dev/shm"
    if cgroups and os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        return shm
    return tempfile.gettempdir()


def sweep_scratch() -> None:
    """Remove the scratch folders of grading processes that ended without removing them."""
    roots = {tempfile.gettempdir(), scratch_root(True)}
    for path in (p for root in sorted(roots) for p in Path(root).glob(SCRATCH_PREFIX + "*")):
        pid = path.name.removeprefix(SCRATCH_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists() and not path.is_symlink():
            folders.remove_tree(str(path))


class Sandbox:
    """One zygote, serving the submissions of one grading process one at a time."""

    def __init__(self, limits: Limits, *, slot: int | None = None, packages=("numpy",)):
        """Start the zygote. Without `slot`, claim a free one on this machine (held until close)."""
        self.limits = limits
        self.packages = tuple(packages)
        check_packages(self.packages)
        self.layers = layers()
        self._claimed = None
        if slot is None:
            self._claimed = slots.claim()
            slot = self._claimed.number
        self.slot = slot
        self.uid = isolation.SANDBOX_UID_BASE + slot if self.layers.uid_drop else None
        self.runtime = runtime_paths(self.packages)
        self.cgroup = f"{os.getpid()}-{slot}"
        self._cgroup_procs = []
        if self.layers.cgroups:
            isolation.cgroup_sweep()
            self._cgroup_procs = isolation.cgroup_create(
                self.cgroup,
                max_pids=limits.max_processes + 2,
                memory_bytes=(limits.memory_mb + 256) << 20,
            )
        sweep_scratch()
        self._proc: subprocess.Popen[bytes] | None = None  # the keeper process
        self.broken = False
        self._handed_over = False  # another process serves this sandbox now (hand_over)
        self._start_zygote()

    def _start_zygote(self) -> None:
        self.broken = False
        self._adopted = False  # whether the keeper is another process's child (take_over)
        # The keeper makes the folder (and says where in its first answer): a folder exists only once
        # a process that removes it however this one ends does.
        self.scratch = None
        self._where = where = os.path.join(
            scratch_root(self.layers.cgroups), f"{SCRATCH_PREFIX}{os.getpid()}-{self.slot}-"
        )
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {
            "PATH": "/usr/bin:/bin",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        settings = {"root": str(PACKAGE_ROOT), "fd": theirs.fileno(), "grader": os.getpid()}
        settings.update(where=where, config=self._children_config())
        # On stdin: a child inherits the keeper's argv and environment (/proc/self, sys.argv).
        self._proc = subprocess.Popen(
            [sys.executable, "-c", KEEPER_BOOT],
            pass_fds=[theirs.fileno()],
            env=env,
            cwd="/",
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
        )
        try:  # if the keeper ended already, its first answer never comes, and that is handled
            self._proc.stdin.write(json.dumps(settings).encode() + b"\n")  # type: ignore[union-attr]
            self._proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        theirs.close()
        for (
            procs
        ) in self._cgroup_procs:  # children are born in the cgroup: no migration per student
            Path(procs).write_text(str(self._keeper.pid))
        self._control.settimeout(CONTROL_TIMEOUT_S)
        self.zygote_pids = {self._keeper.pid}
        self._unanswered = 0
        # The keeper answers once it has imported numpy; until the first submission needs it, this
        # process goes on (loading the reference and the suites) while the zygote warms up.
        self._starting = True
        self._send({"op": Op.START})

    def _children_config(self) -> dict:
        """What the zygote needs to know to confine every child alike, told once when it starts: a
        spawn then says no more than where the submission's files are."""
        layers, limits = self.layers, self.limits
        return {
            "namespaces": layers.namespaces,
            "landlock": layers.landlock,
            "seccomp": layers.seccomp,
            "uid": self.uid,
            "runtime_paths": self.runtime,
            "packages": list(self.packages),
            "limits": {
                k: getattr(limits, k)
                for k in ("cpu_s", "memory_mb", "max_processes", "max_file_kb")
            },
        }

    def _started(self) -> None:
        if self._starting:
            self._starting = False
            reply = self._reply()
            self.zygote_pids |= set(reply.get("zygote", ()))
            self.scratch = reply.get("scratch")

    def _send(self, msg: dict, fds=()) -> None:
        try:
            socket.send_fds(self._control, [json.dumps(msg).encode()], list(fds))
        except OSError as e:
            raise ZygoteGone(f"the sandbox zygote stopped answering ({type(e).__name__})") from None

    def ask(self, msg: dict, fds=()) -> dict:
        """Send one control message to the zygote and wait for its answer (raises ZygoteGone)."""
        self._settle()
        self._send(msg, fds)
        return self._reply()

    def _settle(self) -> None:
        """Read the answers to the requests sent without waiting (start, reap_later)."""
        self._started()
        while self._unanswered:
            self._unanswered -= 1
            self._reply()

    def reap_later(self, pid: int) -> None:
        """Have the zygote kill and reap a submission while this process goes on."""
        self._settle()
        self._send({"op": Op.REAP, "pid": pid})
        self._unanswered += 1

    def clear(self) -> None:
        """Return once nothing of any submission runs: kill and reap until none is left (processes
        still listed were forked while the zygote was killing, or are dying)."""
        for _ in range(1000):
            if not self.survivors():
                return
            self.kill_survivors()
            time.sleep(0.001)
            self.ask({"op": Op.REAP, "pid": None})
        # the next submission must not share a cgroup or a uid with anything left running
        raise RuntimeError(f"sandbox: processes {sorted(self.survivors())} survived SIGKILL")

    def _reply(self) -> dict:
        try:
            data = self._control.recv(65536)
            if not data:
                raise ZygoteGone("the sandbox zygote exited")
            return json.loads(data)
        except (OSError, ValueError) as e:
            raise ZygoteGone(f"the sandbox zygote stopped answering ({type(e).__name__})") from None

    def survivors(self) -> set[int]:
        """Processes of the sandbox other than the keeper and the zygote."""
        self._settle()
        if self.layers.cgroups:
            return set(isolation.cgroup_pids(self.cgroup)) - self.zygote_pids
        if self.uid is not None:  # no cgroup: the slot's uid owns nothing but this submission
            return set(isolation.pids_of_uid(self.uid))
        return set()

    def kill_survivors(self) -> None:
        for pid in self.survivors():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def _restart(self) -> None:
        """A new zygote in a clean cgroup: the old one and everything it left are killed first."""
        self._stop_zygote(kill=True)
        self._start_zygote()

    def _stop_zygote(self, *, kill: bool) -> None:
        if not kill:
            try:
                self._settle()  # a submission being reaped is gone before the zygote is told to end
            except ZygoteGone:
                pass
        self._starting = False
        self._unanswered = 0
        self._control.close()
        if self._adopted:
            self._end_adopted(kill=kill)
        else:
            try:
                if kill:
                    self._keeper.kill()
                self._keeper.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self._keeper.kill()
                self._keeper.wait()
        self.zygote_pids = set()
        for _ in range(100):
            if not self.survivors():
                break
            self.kill_survivors()
            time.sleep(0.01)
        for folder in glob.glob(
            glob.escape(self._where) + "*"
        ):  # the keeper's, known or not (killed early)
            folders.remove_tree(folder)

    def open(self, files: dict[str, bytes], *, entry: str, wait: bool = True, timeouts=None):
        """Start a confined child for one submission and load its entry file.

        Args:
            files: the submission's files by name.
            entry: the file the child loads.
            wait: wait for the load; without it, the child loads while this process goes on, until
                Session.load is read.
            timeouts: {function: seconds} for functions whose calls may take longer (or shorter) than
                limits.call_timeout_s (Assignment.call_timeouts).

        Returns:
            The session.Session.
        """
        from qkv.sandbox.session import Session  # noqa: PLC0415 - it imports numpy, which starting a sandbox must not wait for

        for attempt in range(2):
            if attempt or self.broken or self._keeper_ended():  # killed (by the OOM killer, say)
                self._restart()
            try:
                return Session(self, files, entry, wait=wait, timeouts=timeouts)
            except ZygoteGone:
                continue
        raise RuntimeError("the sandbox zygote failed twice in a row")

    def close(self) -> None:
        if self._proc is not None and self._handed_over:  # the process serving it has ended it
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._proc is not None:
            self._stop_zygote(kill=False)
            self._proc = None
        if self.layers.cgroups:
            isolation.cgroup_remove(self.cgroup)
        if self._claimed is not None:
            self._claimed.release()
            self._claimed = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- a sandbox started by one process and served by a process forked from it ---------------------
    # The grading command starts its grading processes' sandboxes first thing, so that their zygotes
    # import numpy while it loads the rest; each grading process it then forks takes one over.

    def hand_over(self) -> None:
        """In a process that no longer serves this sandbox (the forked one does): drop this process's
        end of the control socket, so the zygote ends when the serving process closes its own. The
        process that started it still reaps its keeper, removes its cgroup and frees its slot (close)."""
        self._control.close()
        self._starting = False
        self._handed_over = True

    def take_over(self) -> None:
        """In the forked process that serves this sandbox from now on: its keeper is the child of the
        process that started it, so whether it lives is read from /proc, not from a wait."""
        self._adopted = True

    @property
    def _keeper(self) -> subprocess.Popen[bytes]:
        assert self._proc is not None, "the keeper is started in __init__"
        return self._proc

    def _keeper_ended(self) -> bool:
        if not self._adopted:
            return self._keeper.poll() is not None
        return _exited(self._keeper.pid)

    def _end_adopted(self, *, kill: bool) -> None:
        """Let the keeper end (it kills its zygote and removes its folder once the control socket
        closes), or kill it; its starter reaps it."""
        pid = self._keeper.pid
        deadline = time.monotonic() + (0 if kill else 5)
        while not _exited(pid) and time.monotonic() < deadline:
            time.sleep(0.002)
        if not _exited(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _exited(pid: int) -> bool:
    """Whether a process (not necessarily a child of this one) has ended: gone, or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True
