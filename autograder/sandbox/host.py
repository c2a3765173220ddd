"""The trusted side of the sandbox: a warm zygote per grading process, one confined child per submission.

Student code never runs in this process. A Sandbox starts `autograder.sandbox.worker` as a fresh
interpreter (so it holds no reference, suite or other student's data), and for each submission
asks it to fork a confined child. A Session then talks to that child over pipes in the wire format,
with a wall-clock deadline per call, draining (and capping) its output, and afterwards kills every
process it left and removes its folder. Each sandbox has one cgroup, proven empty after every
submission before the next one joins it.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from autograder.sandbox import isolation
from autograder.sandbox import slots
from autograder.sandbox import wire
from autograder.sandbox.output import Output
from autograder.course.config import Limits

PACKAGE_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class CallResult:
    """What one call of a student function came to.

    kind: returned | raised | not_implemented | missing | timeout | memory | exited | invalid
    """

    kind: str
    value: object = None
    inputs_changed: tuple[bool, ...] = ()
    message: str = ""


@dataclass
class LoadResult:
    ok: bool
    reason: str = ""  # syntax | import | memory | timeout | exited | unreadable
    message: str = ""
    functions: tuple[str, ...] = ()


def one_line(text, limit: int) -> str:
    """A message from the child as one printable line of at most `limit` characters."""
    flat = " ".join(str(text).split())
    flat = "".join(c if c.isprintable() else "?" for c in flat)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


@lru_cache(maxsize=1)
def layers() -> isolation.Layers:
    """The isolation layers this machine offers (probed once per process)."""
    found = isolation.probe()
    if found.missing:
        print(f"qkv: warning: reduced sandbox, missing {', '.join(found.missing)} (these need root, "
              "Landlock and cgroups v1); student code is less contained", file=sys.stderr)
    return found


def runtime_paths() -> list[str]:
    """What a confined child may read: the standard library, numpy and the system's shared libraries.

    Nothing else of site-packages (in particular not this package, wherever it is installed).
    """
    import numpy  # noqa: PLC0415

    numpy_dir = os.path.dirname(numpy.__file__)
    paths = {"/usr/lib", "/usr/lib64", "/lib", "/lib64", numpy_dir, numpy_dir + ".libs",
             os.path.join(sys.base_prefix, "lib", f"libpython{sys.version_info[0]}.{sys.version_info[1]}.so.1.0")}
    here = str(PACKAGE_ROOT) + os.sep
    for key in ("stdlib", "platstdlib"):
        stdlib = sysconfig.get_paths()[key]
        if not here.startswith(stdlib + os.sep):
            paths.add(stdlib)  # one rule; this package is not inside it
            continue
        for name in os.listdir(stdlib):  # installed into the base interpreter: leave site-packages out
            if name != "site-packages":
                paths.add(os.path.join(stdlib, name))
    return sorted(p for p in paths if os.path.exists(p))


class Sandbox:
    """One zygote, serving the submissions of one grading process one at a time."""

    def __init__(self, limits: Limits, *, slot: int | None = None):
        """Start the zygote. Without `slot`, claim a free one on this machine (held until close)."""
        self.limits = limits
        self.layers = layers()
        self._claimed = None
        if slot is None:
            self._claimed = slots.claim()
            slot = self._claimed.number
        self.slot = slot
        self.uid = isolation.SANDBOX_UID_BASE + slot if self.layers.uid_drop else None
        self._runtime = runtime_paths()
        self.cgroup = f"{os.getpid()}-{slot}"
        self._cgroup_procs = []
        if self.layers.cgroups:
            isolation.cgroup_sweep()
            self._cgroup_procs = isolation.cgroup_create(self.cgroup, max_pids=limits.max_processes + 1,
                                                         memory_bytes=(limits.memory_mb + 256) << 20)
        self._start_zygote()

    def _start_zygote(self) -> None:
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(PACKAGE_ROOT)}
        self._proc = subprocess.Popen([sys.executable, "-m", "autograder.sandbox.worker", str(theirs.fileno()),
                                       "1" if self.layers.namespaces else "0"],
                                      pass_fds=[theirs.fileno()], env=env, cwd="/",
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        for procs in self._cgroup_procs:  # children are born in the cgroup: no migration per student
            Path(procs).write_text(str(self._proc.pid))

    def _ask(self, msg: dict, fds=()) -> dict:
        socket.send_fds(self._control, [json.dumps(msg).encode()], list(fds))
        data = self._control.recv(65536)
        if not data:
            raise RuntimeError("the sandbox zygote exited")
        return json.loads(data)

    def open(self, files: dict[str, bytes], *, entry: str) -> "Session":
        """Start a confined child for one submission and load its entry file."""
        if self._proc.poll() is not None:  # killed (by the OOM killer, say): the next student gets a new one
            self._control.close()
            self._start_zygote()
        return Session(self, files, entry)

    def close(self) -> None:
        try:
            self._control.close()
            self._proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self._proc.kill()
        if self.layers.cgroups:
            isolation.cgroup_remove(self.cgroup)
        if self._claimed is not None:
            self._claimed.release()
            self._claimed = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Timeout(Exception):
    pass


class _Exited(Exception):
    pass


class Session:
    """One confined child: load the submission once, then answer calls until closed."""

    def __init__(self, sandbox: Sandbox, files: dict[str, bytes], entry: str):
        self.sandbox = sandbox
        self.entry = entry
        limits = sandbox.limits
        self.output = Output(limits.max_output_kb * 1024)
        self.status: int | None = None
        self.pid: int | None = None
        self.workdir = tempfile.mkdtemp(prefix="qkv-sub-")
        for name, data in files.items():
            Path(self.workdir, name).write_bytes(data)
        uid = sandbox.uid
        if uid is not None:
            for p in [self.workdir, *(os.path.join(self.workdir, n) for n in files)]:
                os.chown(p, uid, uid)
        req_r, self._req = os.pipe()
        self._rep, rep_w = os.pipe()
        self._out, out_w = os.pipe()
        for fd in (self._req, self._rep, self._out):
            os.set_blocking(fd, False)
        spec = {"entry": entry, "workdir": self.workdir, "uid": uid,
                "landlock": sandbox.layers.landlock,
                "runtime_paths": sandbox._runtime,
                "limits": {k: getattr(limits, k) for k in ("cpu_s", "memory_mb", "max_processes", "max_file_kb")}}
        try:
            self.pid = sandbox._ask({"op": "spawn", "spec": spec}, [req_r, rep_w, out_w])["pid"]
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)
        self.load = self._load(limits.import_timeout_s)

    # -- talking to the child ------------------------------------------------------------------

    def _exchange(self, frame: bytes, timeout: float) -> tuple[dict, bytes]:
        deadline = time.monotonic() + timeout
        pending = memoryview(frame)
        buf = bytearray()
        need = None  # bytes needed for the whole frame, once the header is known
        header = None
        while True:
            if need is not None and len(buf) >= need:
                return header, bytes(buf[need - header["payload"]:need])
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Timeout()
            rlist = [self._rep, self._out]
            wlist = [self._req] if pending else []
            readable, writable, _ = select.select(rlist, wlist, [], left)
            if writable:
                try:
                    pending = pending[os.write(self._req, pending):]
                except BrokenPipeError:
                    pending = memoryview(b"")
            if self._out in readable:
                self._drain_output()
            if self._rep in readable:
                chunk = os.read(self._rep, 1 << 20)
                if not chunk:
                    raise _Exited()
                buf += chunk
                if header is None and len(buf) >= 4:
                    (size,) = struct.unpack(">I", buf[:4])
                    if size > wire.MAX_HEADER:
                        raise wire.WireError("header too large")
                    if len(buf) >= 4 + size:
                        header = wire.parse_header(bytes(buf[4:4 + size]))
                        need = 4 + size + header["payload"]

    def _drain_output(self) -> None:
        try:
            while True:
                chunk = os.read(self._out, 1 << 16)
                if not chunk:
                    return
                self.output.add(chunk)
        except BlockingIOError:
            return

    def _load(self, timeout: float) -> LoadResult:
        try:
            header, _ = self._exchange(b"", timeout)
        except _Timeout:
            self.close()
            return LoadResult(False, "timeout", f"loading the file took longer than {timeout:g} s")
        except (_Exited, wire.WireError):
            self.close()
            return LoadResult(False, "exited", f"the process ended while loading the file ({self.exit_text()})")
        if header.get("op") == "loaded":
            names = header.get("functions")
            ok_names = tuple(one_line(n, 80) for n in names) if isinstance(names, list) else ()
            return LoadResult(True, functions=ok_names)
        self.close()
        message = one_line(header.get("message", "could not be loaded"), 300)
        where = one_line(header.get("where", ""), 300)
        return LoadResult(False, one_line(header.get("reason", "import"), 20), message + (f" ({where})" if where else ""))

    def call(self, function: str, args, *, timeout: float | None = None) -> CallResult:
        """Call a student function on plain arrays; never raises for anything the child does."""
        if self.pid is None or self.status is not None:
            return CallResult("exited", message="the worker is no longer running")
        timeout = self.sandbox.limits.call_timeout_s if timeout is None else timeout
        arrays: list = []
        trees = [wire.encode_value(np.asarray(a, dtype=np.float64), arrays) for a in args]
        frame = wire.pack({"op": "call", "function": function, "args": trees}, arrays)
        try:
            header, payload = self._exchange(frame, timeout)
        except _Timeout:
            self.close()
            return CallResult("timeout", message=f"{function}() did not return within {timeout:g} s (an endless loop?)")
        except _Exited:
            self.close()
            return CallResult("exited", message=f"the process running {function}() ended ({self.exit_text()})")
        except wire.WireError as e:
            self.close()
            return CallResult("invalid", message=f"the worker sent a malformed reply ({e})")
        return self._result(function, args, header, payload)

    def _result(self, function: str, args, header: dict, payload: bytes) -> CallResult:
        op = header.get("op")
        if op == "returned":
            try:
                value, offset = wire.decode_value(header.get("value"), payload)
                after = []
                for tree in header.get("inputs_after", [])[:len(args)]:
                    item, offset = wire.decode_value(tree, payload, offset)
                    after.append(item)
            except wire.WireError as e:
                return CallResult("invalid", message=f"the worker sent a malformed reply ({e})")
            changed = tuple(not (isinstance(b, np.ndarray) and b.shape == np.shape(a)
                                 and b.tobytes() == np.asarray(a, dtype=np.float64).tobytes())  # bit for bit
                            for a, b in zip(args, after))
            return CallResult("returned", value, changed)
        if op == "raised":
            text = f"raised {one_line(header.get('type'), 80)}: {one_line(header.get('message'), 300)}"
            where = one_line(header.get("where", ""), 400)
            return CallResult("raised", message=text + (f" ({where})" if where else ""))
        if op == "not_implemented":
            return CallResult("not_implemented", message=f"{function}() is not implemented yet")
        if op == "missing":
            return CallResult("missing", message=f"{self.entry} defines no function {function}()")
        if op == "memory":
            return CallResult("memory", message=f"{function}() ran out of memory "
                                                f"(limit {self.sandbox.limits.memory_mb} MiB)")
        return CallResult("invalid", message="the worker sent an unknown reply")

    # -- ending ----------------------------------------------------------------------------------

    def exit_text(self) -> str:
        if self.status is None:
            return "still running"
        if os.WIFSIGNALED(self.status):
            sig = os.WTERMSIG(self.status)
            if sig == signal.SIGXCPU:
                return f"stopped after using {self.sandbox.limits.cpu_s} s of CPU time"
            if sig == signal.SIGKILL:
                return "killed"
            return f"killed by signal {signal.Signals(sig).name}"
        return f"exit code {os.WEXITSTATUS(self.status)}"

    def _survivors(self) -> set[int]:
        if self.sandbox.layers.cgroups:  # everything in the cgroup but the zygote itself
            return set(isolation.cgroup_pids(self.sandbox.cgroup)) - {self.sandbox._proc.pid}
        if self.sandbox.uid is not None:  # no cgroup: the slot's uid owns nothing but this submission
            return set(isolation.pids_of_uid(self.sandbox.uid))
        return set()

    @staticmethod
    def _kill(pids) -> None:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def close(self) -> None:
        """Kill everything the submission started, reap it, and remove its folder and cgroup."""
        if self.pid is None:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        self._kill(self._survivors())
        try:
            self._drain_output()
        except OSError:
            pass
        for fd in (self._req, self._rep, self._out):
            try:
                os.close(fd)
            except OSError:
                pass
        # The zygote reaps the child and any orphans it left (it is their subreaper); processes
        # still listed were forked while we were killing, or are dying: kill and reap until none.
        self.status = self.sandbox._ask({"op": "reap", "pid": self.pid})["status"]
        self.pid = None
        for _ in range(1000):
            survivors = self._survivors()
            if not survivors:
                break
            self._kill(survivors)
            time.sleep(0.001)
            self.sandbox._ask({"op": "reap", "pid": None})
        else:  # the next submission must not share a cgroup or a uid with anything left running
            raise RuntimeError(f"sandbox: processes {sorted(survivors)} survived SIGKILL")
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
