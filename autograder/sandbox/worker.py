"""The worker side: a warm "zygote" interpreter that forks one confined child per submission.

Started by the sandbox as a fresh interpreter before any reference, suite or other student's data
is loaded, it imports numpy and warms it once, then waits on a control socket. For each spawn it
forks a child that confines itself (cgroup, network namespace, rlimits, Landlock, an unprivileged
uid), writes the submission's files into a private folder, loads them and answers calls. The child
talks to the grader only through its own pipes, in the wire format; it never sees a hidden case
before the call that uses it, nor any expected value.
"""
from __future__ import annotations

import functools
import gc
import json
import os
import resource
import shutil
import signal
import socket
import sys
import tempfile
import traceback

import numpy as np

from autograder.sandbox import imports, isolation, seccomp, wire

# Imported here, before any child is forked, so a confined child never needs to read them from disk.
import collections, dataclasses, functools, itertools, math, random, typing, warnings  # noqa: E401,F401
import numpy.testing  # noqa: F401


def _read_exact(fd: int, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int):
    (size,) = wire.LENGTH.unpack(_read_exact(fd, wire.LENGTH.size))
    header = json.loads(_read_exact(fd, size))
    return header, _read_exact(fd, header["payload"])


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _where(line: int, cells) -> str:
    """'line 12', or for a notebook 'cell 7 (score), line 3' (cells: [[first line, label], ...])."""
    for first, label in reversed(cells or ()):
        if isinstance(first, int) and line >= first:
            return f"{label}, line {line - first + 1}"
    return f"line {line}"


def _student_trace(exc: BaseException, filename: str, cells=None) -> str:
    """The traceback trimmed to the student's own frames: 'line 12 in score: return Q @ K'."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    return "; ".join(f"{_where(f.lineno, cells)} in {f.name}: {(f.line or '').strip()}"[:160] for f in frames[-3:])


def _describe(exc: BaseException, filename: str, cells=None) -> dict:
    message = str(exc)[:300]
    return {"type": type(exc).__name__[:80], "message": message, "where": _student_trace(exc, filename, cells)}


class Child:
    """The confined process serving one submission."""

    def __init__(self, req: int, rep: int, spec: dict):
        self.req, self.rep, self.spec = req, rep, spec
        self.module = None
        self.path = os.path.join(spec["workdir"], spec["entry"])
        # Code, tracebacks and warnings name the file as the student does, relative to the working
        # folder: the folder's random name would make the same submission's output differ per run.
        self.filename = spec["entry"]
        self.cells = None  # a notebook's map from lines to cells, written beside the code by the grader

    def reply(self, header: dict, arrays=()) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        _write(self.rep, wire.pack(header, arrays))

    def confine(self) -> None:
        spec = self.spec
        limits = spec["limits"]
        if spec["namespaces"]:
            isolation.unshare_ipc()  # SysV objects and queues die with this submission
        for soft_hard, res in (((0, 0), resource.RLIMIT_CORE),
                               ((limits["cpu_s"], limits["cpu_s"] + 1), resource.RLIMIT_CPU),
                               ((limits["max_file_kb"] * 1024,) * 2, resource.RLIMIT_FSIZE),
                               ((64, 64), resource.RLIMIT_NOFILE),
                               ((limits["max_processes"],) * 2, resource.RLIMIT_NPROC)):
            resource.setrlimit(res, soft_hard)
        statm = os.open("/proc/self/statm", os.O_RDONLY)
        try:
            in_use = int(os.read(statm, 256).split()[0]) * PAGE_SIZE
        finally:
            os.close(statm)
        resource.setrlimit(resource.RLIMIT_AS, (in_use + limits["memory_mb"] * 2**20,) * 2)
        if spec["landlock"]:
            isolation.landlock_enforce(spec["ruleset"])  # built by the zygote for this child (_ruleset)
        if spec["uid"] is not None:
            isolation.drop_privileges(spec["uid"])
        # After the uid drop, which clears the request; the zygote's pid says whether it already ended.
        isolation.die_with_parent(signal.SIGKILL, parent=spec["zygote_pid"])
        if spec["seccomp"]:
            seccomp.install()
        os.chdir(spec["workdir"])
        os.environ["HOME"] = spec["workdir"]  # the rest of CHILD_ENV, and nothing else, the zygote set
        imports.restrict(_OPENED, tuple(spec["packages"]), own=(os.path.splitext(spec["entry"])[0],))

    def load(self) -> None:
        try:
            with open(self.path, "rb") as f:
                source = f.read()
            if os.path.exists(wire.CELL_MAP_FILE):
                with open(wire.CELL_MAP_FILE, "rb") as f:
                    self.cells = json.loads(f.read(1 << 20))
            code = compile(source, self.filename, "exec", dont_inherit=True)
        except SyntaxError as e:
            where = _where(e.lineno or 0, self.cells)
            self.reply({"op": wire.Op.UNGRADABLE, "reason": "syntax",
                        "message": f"syntax error {'in' if where.startswith('cell') else 'on'} {where}: {e.msg}"})
            return
        except (ValueError, OSError) as e:
            self.reply({"op": wire.Op.UNGRADABLE, "reason": "unreadable", "message": str(e)[:200]})
            return
        name = os.path.splitext(self.spec["entry"])[0]  # the student's module, named as they name it
        module = type(sys)(name)
        module.__file__ = self.path
        sys.modules[name] = module
        try:
            exec(code, module.__dict__)
        except MemoryError:
            self.reply({"op": wire.Op.UNGRADABLE, "reason": "memory", "message": "ran out of memory while loading"})
            return
        except imports.NotAllowed as e:
            self.reply({"op": wire.Op.UNGRADABLE, "reason": "import", "message": str(e)[:300],
                        "where": _student_trace(e, self.filename, self.cells)})
            return
        except BaseException as e:  # SystemExit and KeyboardInterrupt at import are the student's too
            info = _describe(e, self.filename, self.cells)
            self.reply({"op": wire.Op.UNGRADABLE, "reason": "import", "message": f"loading raised {info['type']}: "
                        f"{info['message']}", "where": info["where"]})
            return
        self.module = module
        functions = [name for name, value in vars(module).items() if callable(value)]
        self.reply({"op": wire.Op.LOADED, "functions": functions[:200]})

    def call(self, function: str, args) -> tuple[dict, list]:
        """Run one call; its reply (returned, raised, ...) and the arrays that go with it."""
        fn = getattr(self.module, function, None)
        if not callable(fn):
            return {"op": wire.Op.MISSING}, []
        try:
            result = fn(*args)
        except NotImplementedError:
            return {"op": wire.Op.NOT_IMPLEMENTED}, []
        except MemoryError:
            return {"op": wire.Op.MEMORY}, []
        except BaseException as e:  # RecursionError, SystemExit, ...: the student's, reported as raised
            return {"op": wire.Op.RAISED, **_describe(e, self.filename, self.cells)}, []
        arrays = []
        try:
            value = wire.encode_value(result, arrays)
            after = [wire.encode_value(a, arrays) for a in args]
        except MemoryError:
            return {"op": wire.Op.MEMORY}, []
        return {"op": wire.Op.RETURNED, "value": value, "inputs_after": after}, arrays

    def calls(self, header: dict, payload: bytes) -> None:
        """Run a batch of calls in order and answer in as few frames as the limits allow (one, as a
        rule), or, with `stream`, one frame per call as it returns so the grader can time each."""
        results, arrays, head, size, offset = [], [], 0, 0, 0
        for call in header["calls"]:
            args = []
            for tree in call["args"]:
                value, offset = wire.decode_value(tree, payload, offset)
                args.append(value)
            reply, out = self.call(call["function"], args)
            results.append(reply)
            arrays += out
            head += 256 + 64 * len(out) + len(reply.get("message", "")) + len(reply.get("where", ""))
            size += sum(a.nbytes for a in out)
            if header.get("stream") or head > wire.MAX_HEADER // 4 or size > wire.MAX_PAYLOAD // 4:
                self.reply({"op": wire.Op.RESULTS, "results": results}, arrays)
                results, arrays, head, size = [], [], 0, 0
        if results:
            self.reply({"op": wire.Op.RESULTS, "results": results}, arrays)

    def serve(self) -> None:
        self.load()
        if self.module is None:
            return
        while True:
            header, payload = _read_frame(self.req)
            if header.get("op") != wire.Op.CALLS:
                return
            self.calls(header, payload)


def child_main(fds: list[int], spec: dict) -> None:
    req, rep, out = fds
    code = 0
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        keep = sorted({0, 1, 2, req, rep, *_OPENED_FDS, *_own_fds(spec)})
        for low, high in zip(keep, keep[1:] + [65536]):
            os.closerange(low + 1, high)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        child = Child(req, rep, spec)
        child.confine()
        child.serve()
    except EOFError:
        pass
    except BaseException:
        traceback.print_exc()
        code = 70
    finally:
        os._exit(code)


# The folders a child imports through, opened once by the zygote (see imports.py): {path: alias},
# and their descriptors, which a child keeps.
_OPENED: dict[str, str] = {}
_OPENED_FDS: list[int] = []
# A child's whole environment (its HOME is its own folder): the zygote's, from the first spawn on.
CHILD_ENV = {"HOME": "/", "OPENBLAS_NUM_THREADS": "1"}
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@functools.cache
def _prepare(packages: tuple[str, ...]) -> None:
    """What every child would otherwise do for itself after the fork, done once before the first.

    A child writes to every page it touches, and each such page is copied for it: the less of the
    zygote's state a child has to build or walk, the cheaper it is.
    """
    package_dirs = [d for name in packages for d in imports.package_dirs(name)]
    _OPENED.update(imports.open_folders(imports.stdlib_dirs() + package_dirs))
    _OPENED_FDS.extend(int(alias.rsplit("/", 1)[1]) for alias in _OPENED.values())
    imports.alias_packages(_OPENED)
    imports.allowed_names(packages)
    if seccomp.supported():
        seccomp.compiled()
    os.environ.clear()
    os.environ.update(CHILD_ENV)
    sys.path_importer_cache.clear()  # a child clears it again: let it find (and free) nothing
    gc.freeze()


def _own_fds(spec: dict) -> tuple[int, ...]:
    """The zygote's descriptors made for one child: its ruleset, when it has one."""
    return () if spec["ruleset"] is None else (spec["ruleset"],)


def _warm(packages: tuple[str, ...]) -> None:
    """Get the zygote's state ready for its children (the keeper does it before the zygote exists)."""
    np.random.default_rng(0).random(4)  # numpy 2 initialises its RNG machinery lazily: pay for it once
    np.random.random(4)
    _prepare(packages)
    gc.freeze()  # children then never walk (and copy) the zygote's objects when they collect


def _spawn(control: socket.socket, spec: dict, fds: list[int]) -> dict:
    """Fork a child for one submission; a failure is reported, never fatal to the zygote."""
    _prepare(tuple(spec["packages"]))
    spec = {**spec, "zygote_pid": os.getpid(), "ruleset": None}
    pid, step = None, "Landlock"
    try:
        if spec["landlock"]:  # built here, the child only enforces it: a new one per child, as rules
            # added to a ruleset after the fork would reach every process holding it
            spec["ruleset"] = isolation.landlock_ruleset([*spec["runtime_paths"], "/dev/null", "/dev/urandom"],
                                                         [spec["workdir"]], reuse=True)
        step = "fork"
        pid = os.fork()
    except OSError as e:
        error = f"{step} failed: {e.strerror or e}"
    if pid == 0:
        control.close()
        child_main(fds, spec)
    for fd in (*fds, *_own_fds(spec)):
        os.close(fd)
    return {"pid": pid} if pid else {"pid": None, "error": error}


def _reap(pid, *, own_namespace: bool) -> dict:
    """Kill the submission and everything it started, and reap them all."""
    try:
        if own_namespace:
            os.kill(-1, signal.SIGKILL)  # as the init of this PID namespace: everyone in it but us
        elif pid is not None:
            os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    status = 0
    try:
        if pid is not None:
            _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    return {"status": status}


def zygote(control: socket.socket, *, own_namespace: bool, packages=()) -> None:
    """Serve spawn/reap requests from the grader until it closes the socket.

    With namespaces, the zygote is the init of its own PID namespace (private network, IPC and
    hostname too), and the grader has put it in the sandbox's cgroup: every child is born inside
    all of them, so no child pays to create them or to migrate between cgroups.
    """
    _warm(tuple(packages))  # done already when the keeper forked this process
    isolation.set_child_subreaper()  # a submission's orphans become ours to reap, not init's
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 20, 3)
        except OSError:
            return
        if not data:
            return
        msg = json.loads(data)
        if msg["op"] == wire.Op.SPAWN:
            reply = _spawn(control, msg["spec"], fds)
        elif msg["op"] == wire.Op.REAP:
            reply = _reap(msg["pid"], own_namespace=own_namespace)
        else:
            reply = {"error": "unknown request"}
        control.sendall(json.dumps(reply).encode())


def keeper(control: socket.socket, *, namespaces: bool, grader: int, where: str, packages: list[str]) -> None:
    """The process the grader starts: it runs the zygote, and cleans up after it however the grader ends.

    It dies with the grader (PR_SET_PDEATHSIG): then it kills the zygote, whose PID namespace takes
    every submission process with it, and removes the folder holding the submissions' files, which
    it made (`where` + a random suffix) and named in its first answer.
    """
    scratch = None
    # First with SIGTERM's default action: if the grader has already ended, this process ends here,
    # before it has made anything (with the handler below in place it would wait for nothing).
    isolation.die_with_parent(signal.SIGTERM, parent=grader)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    for name in packages:  # the course's packages, imported once for every child
        __import__(name)
    _warm(tuple(packages))  # while the grader moves this process into the sandbox's cgroup
    try:
        scratch = tempfile.mkdtemp(prefix=os.path.basename(where), dir=os.path.dirname(where))
        os.chmod(scratch, 0o711)  # sandbox uids reach their own folder inside, and list nothing
        if not control.recv(64):  # "start": the grader has put this process in the sandbox's cgroup
            return
        if not namespaces:
            control.sendall(json.dumps({"zygote": [], "scratch": scratch}).encode())
            zygote(control, own_namespace=False, packages=packages)
            return
        isolation.unshare_zygote()
        alive_r, alive_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(alive_w)
            isolation.die_with_parent(signal.SIGKILL, watch_fd=alive_r)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                zygote(control, own_namespace=True, packages=packages)
            finally:
                os._exit(0)
        os.close(alive_r)
        control.sendall(json.dumps({"zygote": [pid], "scratch": scratch}).encode())
        control.close()
        signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGKILL))
        if stop:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    keeper(socket.socket(fileno=int(sys.argv[1])), namespaces=sys.argv[2] == "1", grader=int(sys.argv[3]),
           where=sys.argv[4], packages=[p for p in sys.argv[5].split(",") if p])
    os._exit(0)  # the keeper has cleaned up: the grader waits for this exit, so skip the interpreter's teardown
