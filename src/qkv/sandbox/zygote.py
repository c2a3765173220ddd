"""The keeper and its warm zygote, an interpreter that forks one confined child per submission.

Started by the sandbox as a fresh interpreter before any reference, suite or other student's data
is loaded, it imports numpy and warms it once, then waits on a control socket. For each spawn it
forks a child (child.py) that confines itself (cgroup, network namespace, rlimits, Landlock, an
unprivileged uid), loads the submission's files from its private folder and answers calls. The
child talks to the grader only through its own pipes, in the wire format; it never sees an
expected value (docs/internals/sandbox.md says which inputs it sees, and when).
"""

from __future__ import annotations

import _socket

# Imported here, before any child is forked, so a confined child never needs to read them from disk.
# Not what a submission seldom imports (a child can, from disk), since whatever the zygote holds is
# copied into every child's page tables at the fork and torn down at its exit: not numpy.testing
# (5 MB), nor `socket`, `tempfile` and `shutil` (with zlib, bz2 and lzma: 30 mappings and 400 KB),
# which only the keeper needs.
import collections  # noqa: F401 - for the children, as said above
import ctypes
import functools
import gc
import json
import os
import resource
import signal
import struct
import sys

import numpy as np

from qkv.sandbox import child, folders, imports, isolation, seccomp, warmup, wire

# The folders a child imports through, opened once by the zygote (see imports.py): {path: alias},
# and their descriptors, which a child keeps.
_OPENED: dict[str, str] = {}
_OPENED_FDS: list[int] = []
# A child's whole environment (its HOME is its own folder): the zygote's, from the first spawn on.
CHILD_ENV = {"HOME": "/", "OPENBLAS_NUM_THREADS": "1"}
CONTROL_BYTES = (
    1 << 16
)  # a request's most: small enough to be read into memory the zygote already has
_libc_fork = ctypes.PyDLL(None, use_errno=True).fork  # called with the GIL held, as os.fork does


_FD = struct.Struct("i")


def _recv_fds(control: _socket.socket, size: int, most: int) -> tuple[bytes, list[int]]:
    """A request and the descriptors sent with it (socket.recv_fds, without the socket module)."""
    data, ancillary, _, _ = control.recvmsg(size, _socket.CMSG_LEN(most * _FD.size))
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds += (
                fd for (fd,) in _FD.iter_unpack(payload[: len(payload) - len(payload) % _FD.size])
            )
    return data, fds


@functools.cache
def _prepare(packages: tuple[str, ...], scratch: str) -> None:
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
    warmup.rehearse(scratch)
    os.environ.clear()
    os.environ.update(CHILD_ENV)
    sys.path_importer_cache.clear()  # a child clears it again: let it find (and free) nothing
    warmup.fill_free_blocks()
    gc.freeze()


def _warm(packages: tuple[str, ...], scratch: str) -> None:
    """Get the zygote's state ready for its children (the keeper does it before the zygote exists);
    `scratch`: the keeper's folder, where the rehearsal's file goes for the while."""
    np.random.default_rng(0).random(
        4
    )  # numpy 2 initialises its RNG machinery lazily: pay for it once
    np.random.random(4)
    _prepare(packages, scratch)
    gc.freeze()  # children then never walk (and copy) the zygote's objects when they collect


def _setup(config: dict) -> child.Setup:
    """What every child of this zygote does alike (config: the sandbox's settings, see host.py)."""
    limits = config["limits"]
    return child.Setup(
        zygote_pid=os.getpid(),
        namespaces=config["namespaces"],
        uid=config["uid"],
        limits=(
            (resource.RLIMIT_CORE, (0, 0)),
            (resource.RLIMIT_CPU, (limits["cpu_s"], limits["cpu_s"] + 1)),
            (resource.RLIMIT_FSIZE, (limits["max_file_kb"] * 1024,) * 2),
            (resource.RLIMIT_NOFILE, (64, 64)),
            (resource.RLIMIT_NPROC, (limits["max_processes"],) * 2),
        ),
        memory=limits["memory_mb"] * 2**20,
        import_path=imports.import_path(_OPENED),
        gate=imports.Gate(tuple(config["packages"])),
        keep=frozenset((0, 1, 2, *_OPENED_FDS)),
        devnull=os.open(os.devnull, os.O_RDONLY),
    )


def _fork() -> int:
    """fork(2) without Python's at-fork hooks, which would run in every child: threading's
    bookkeeping, random's reseed, logging's locks, each writing to (so copying) pages of the zygote.
    The zygote runs no other thread, so there is nothing for them to repair; a child keeps the
    zygote's `random` state, as it keeps numpy's."""
    pid = _libc_fork()
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return pid


def _spawn(setup: child.Setup, read_only: list[str] | None, msg: dict, fds: list[int]) -> bytes:
    """Fork a child for one submission; the answer is its pid, or why there is none (never fatal to
    the zygote). `read_only`: what Landlock lets the child read, or None without Landlock."""
    workdir, entry = msg["workdir"], msg["entry"]
    ruleset, pid, step = None, None, "Landlock"
    try:
        if read_only is not None:  # built here, the child only enforces it: a new one per child, as
            # rules added to a ruleset after the fork would reach every process holding it
            ruleset = isolation.landlock_ruleset(read_only, [workdir], reuse=True)
        step = "fork"
        pid = _fork()
    except OSError as e:
        error = f"{step} failed: {e.strerror or e}"
    if pid == 0:
        child.main(setup, fds, workdir, entry, ruleset)
    for fd in fds if ruleset is None else (*fds, ruleset):
        os.close(fd)
    return b"%d" % pid if pid else json.dumps({"error": error}).encode()


def _reap(pid, *, own_namespace: bool) -> bytes:
    """Kill the submission and everything it started, and reap them all; the answer is the
    submission's wait status."""
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
    return b"%d" % status


def zygote(control: _socket.socket, *, own_namespace: bool, config: dict, scratch: str) -> None:
    """Serve spawn/reap requests from the grader until it closes the socket.

    With namespaces, the zygote is the init of its own PID namespace (private network, IPC and
    hostname too), and the grader has put it in the sandbox's cgroup: every child is born inside
    all of them, so no child pays to create them or to migrate between cgroups.

    Args:
        control: the keeper's end of the grader's control socket: one request a message.
        own_namespace: the zygote is the init of its own PID namespace, so a reap kills all in it.
        config: the sandbox's settings for its children (host.Sandbox._children_config).
        scratch: the submissions' folder the keeper made, where the warm-up's rehearsal writes.
    """
    _warm(tuple(config["packages"]), scratch)  # done already when the keeper forked this process
    setup = _setup(config)
    read_only = [*config["runtime_paths"], "/dev/urandom"] if config["landlock"] else None
    gc.freeze()
    isolation.set_child_subreaper()  # a submission's orphans become ours to reap, not init's
    if config[
        "seccomp"
    ]:  # last: every child is born under it (see seccomp.py), and this process needs nothing it refuses
        seccomp.install()
    while True:
        try:
            data, fds = _recv_fds(control, CONTROL_BYTES, 4)
        except OSError:
            return
        if not data:
            return
        msg = json.loads(data)
        if msg["op"] == wire.Op.SPAWN:
            reply = _spawn(setup, read_only, msg, fds)
        elif msg["op"] == wire.Op.REAP:
            reply = _reap(msg["pid"], own_namespace=own_namespace)
        else:
            reply = b'{"error": "unknown request"}'
        control.sendall(reply)


def keeper(control: _socket.socket, *, grader: int, where: str, config: dict) -> None:
    """The process the grader starts: it runs the zygote, and cleans up after it however the grader ends.

    It dies with the grader (PR_SET_PDEATHSIG): then it kills the zygote, whose PID namespace takes
    every submission process with it, and removes the folder holding the submissions' files, which
    it made and named in its first answer.

    Args:
        control: its end of the grader's control socket, which the zygote then serves.
        grader: the grading process's pid.
        where: the path of the submissions' folder but for the random suffix the keeper adds.
        config: the sandbox's settings for its children (host.Sandbox._children_config).
    """
    namespaces, packages = config["namespaces"], config["packages"]
    scratch = None
    # First with SIGTERM's default action: if the grader has already ended, this process ends here,
    # before it has made anything (with the handler below in place it would wait for nothing).
    isolation.die_with_parent(signal.SIGTERM, parent=grader)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    for name in packages:  # the course's packages, imported once for every child
        __import__(name)
    try:
        scratch = folders.private_folder(where)
        os.chmod(scratch, 0o711)  # sandbox uids reach their own folder inside, and list nothing
        _warm(
            tuple(packages), scratch
        )  # while the grader moves this process into the sandbox's cgroup
        try:
            started = control.recv(
                64
            )  # "start": the grader has put this process in the sandbox's cgroup
        except OSError:
            started = b""
        if not started:
            return
        if not namespaces:
            if _answer(control, {"zygote": [], "scratch": scratch}):
                zygote(control, own_namespace=False, config=config, scratch=scratch)
            return
        isolation.unshare_zygote()
        alive_r, alive_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(alive_w)
            isolation.die_with_parent(signal.SIGKILL, watch_fd=alive_r)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                zygote(control, own_namespace=True, config=config, scratch=scratch)
            finally:
                os._exit(0)
        os.close(alive_r)
        if not _answer(control, {"zygote": [pid], "scratch": scratch}):
            os.kill(pid, signal.SIGKILL)  # no one is left to serve
        control.close()
        signal.signal(signal.SIGTERM, lambda *_: _end(pid))
        if stop:
            _end(pid)
        os.waitpid(pid, 0)
    finally:
        if scratch:
            folders.remove_tree(scratch)


def _end(zygote: int) -> None:
    """Kill the zygote, which may have ended and been reaped already (its grader closed the socket):
    SIGTERM can come at any time, and its handler must never raise, least of all into the cleanup."""
    try:
        os.kill(zygote, signal.SIGKILL)
    except OSError:
        pass


def _answer(control: _socket.socket, msg: dict) -> bool:
    """Send the keeper's one answer; False when the grader's end is gone (the grading process was
    killed while this one started): the keeper then ends quietly, as it does when the grader ends."""
    try:
        control.sendall(json.dumps(msg).encode())
        return True
    except OSError:
        return False


def main(settings: dict) -> None:
    """The keeper's start (host.KEEPER_BOOT): settings read from stdin, which is then /dev/null,
    its argv emptied (a child's sys.path is its own: see imports.restrict)."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.argv[:] = [""]
    keeper(
        _socket.socket(fileno=settings["fd"]),
        grader=settings["grader"],
        where=settings["where"],
        config=settings["config"],
    )
    os._exit(
        0
    )  # the keeper has cleaned up: the grader waits for this exit, so skip the interpreter's teardown
