"""Kernel isolation layers for the children, via ctypes: Landlock, namespaces, cgroups, uids, seccomp.

Every layer is probed at start-up (`probe()`); the sandbox uses what works and records the level.
Measured costs and traps on this kind of machine are in the kit's design notes: RLIMIT_NPROC is
ignored for root (hence the drop to a per-slot uid), and Landlock applies to root too.
"""

from __future__ import annotations

import ctypes
import functools
import os
import select
import signal
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from qkv.sandbox import seccomp

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
SYS_MSEAL = 462  # Linux 6.10+, x86_64 and arm64 alike
PROT_READ, PROT_WRITE, MAP_SHARED = 1, 2, 1
MAP_FAILED = ctypes.c_void_p(-1).value
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = (
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
)
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

FS_READ = (1 << 0) | (1 << 2) | (1 << 3)  # execute, read file, read dir
FS_WRITE_FILE, FS_TRUNCATE = 1 << 1, 1 << 14
FS_FILE = (
    (1 << 0) | FS_WRITE_FILE | (1 << 2) | FS_TRUNCATE
)  # what a rule on a file (not a folder) may grant
WRITABLE_DEVICES = (
    "/dev/null",
)  # writing there keeps nothing: code may silence its output with it
_FS_BITS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}  # number of handled fs access bits per ABI
CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_CONTROLLERS = ("pids", "memory")
# Where the processor controller is mounted, each sandbox also gets a cpu cgroup of its own: the
# scheduler then shares the processor between sandboxes, however many processes (each its own session,
# so its own autogroup) a submission starts, and one cannot starve the one graded beside it into
# timeouts. Its members are the pids cgroup's, so it is not read to find them.
CGROUP_CPU = "cpu"
SANDBOX_UID_BASE = 61000


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, or 0 when Landlock is missing or disabled."""
    r = _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(r), 0)


def landlock_restrict(read_only: list[str], read_write: list[str]) -> None:
    """Confine this process (and its future children) to the given paths, and WRITABLE_DEVICES;
    nothing else is reachable.

    TCP bind/connect is denied too (ABI 4+), and so are signals and abstract sockets leaving the
    domain (ABI 6+).
    """
    landlock_enforce(landlock_ruleset(read_only, read_write))


_KEPT: dict[tuple, list] = {}  # read-only paths opened once, for landlock_ruleset(..., reuse=True)


def landlock_ruleset(read_only: list[str], read_write: list[str], *, reuse: bool = False) -> int:
    """A new ruleset for the paths of landlock_restrict, to enforce (landlock_enforce) or close.

    Args:
        read_only: what the process may read and run: the runtime's paths (host.runtime_paths).
        read_write: what it may also write and remove in: the submission's folder.
        reuse: keep the read-only paths open for the next ruleset (a zygote builds one per child).
    """
    all_fs, attr, size = _landlock_handled()
    kept = _KEPT.get(tuple(read_only)) if reuse else None
    if kept is None:
        kept = _landlock_open(read_only, FS_READ) + _landlock_open(WRITABLE_DEVICES, FS_FILE)
        if reuse:
            _KEPT[tuple(read_only)] = kept
    own = _landlock_open(read_write, all_fs)
    try:
        ruleset = _check(
            _libc.syscall(
                SYS_LANDLOCK_CREATE_RULESET,
                ctypes.byref(attr),
                ctypes.c_size_t(size),
                ctypes.c_uint32(0),
            ),
            "landlock_create_ruleset",
        )
        try:
            for fd, access in kept + own:
                rule = _PathBeneathAttr(
                    access & all_fs, fd
                )  # (truncating is handled from ABI 3 on)
                _check(
                    _libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0),
                    "landlock_add_rule",
                )
        except BaseException:
            os.close(ruleset)
            raise
        return ruleset
    finally:
        for fd, _ in own if reuse else kept + own:
            os.close(fd)


def _landlock_open(paths: Sequence[str], access: int) -> list[tuple[int, int]]:
    """Each path that exists, opened (O_PATH) with the access its rule gives: [(fd, access), ...]."""
    opened = []
    for path in paths:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # a runtime path this machine does not have
        is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
        opened.append((fd, access if is_dir else access & FS_FILE))
    return opened


def landlock_enforce(ruleset: int) -> None:
    """Confine this process (and its future children) to a ruleset, and close it."""
    try:
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")
        _check(_libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


@functools.lru_cache(maxsize=1)
def _landlock_handled() -> tuple[int, _RulesetAttr, int]:
    """What a ruleset handles on this kernel: (every fs access bit, the ruleset attribute, its size)."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError("Landlock is not available")
    all_fs = (1 << _FS_BITS_BY_ABI.get(abi, 16)) - 1
    attr = _RulesetAttr(all_fs, 0b11 if abi >= 4 else 0, 0b11 if abi >= 6 else 0)
    return all_fs, attr, ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)


def unshare_zygote() -> None:
    """Namespaces for a zygote: its children start in a new PID namespace (the zygote's first child is
    its init: when that dies, the kernel kills every process left in it), with a private network (only
    a downed loopback), IPC and hostname."""
    _check(_libc.unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")


def map_shared(fd: int, kind):
    """The start of a memory file, mapped read-write and shared as `kind` (a ctypes char array type,
    made once by the caller): what this process writes there, the process holding the file sees.

    The mapping is sealed where the kernel can (mseal): code running later in this process can then
    neither unmap it nor map anything else over it, so what it does to the bytes there is what the
    holder of the file sees."""
    size = ctypes.sizeof(kind)
    addr = _libc.mmap(None, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
    if addr is None or addr == MAP_FAILED:
        raise OSError(ctypes.get_errno(), "mmap of a shared memory file failed")
    _libc.syscall(
        SYS_MSEAL, ctypes.c_void_p(addr), ctypes.c_size_t(size), ctypes.c_ulong(0)
    )  # ENOSYS before 6.10
    return kind.from_address(addr)


def unshare_ipc() -> None:
    """A fresh IPC namespace: SysV objects and POSIX queues die with the last process using it."""
    _check(_libc.unshare(CLONE_NEWIPC), "unshare(CLONE_NEWIPC)")


def set_child_subreaper() -> None:
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def die_with_parent(sig: int, *, parent: int | None = None, watch_fd: int | None = None) -> None:
    """Have the kernel send `sig` to this process when its parent ends; then make sure it has not already.

    Args:
        sig: the signal; it must end this process (a handled one would leave it waiting).
        parent: the parent's pid, to tell whether it ended before the request; or None.
        watch_fd: for the init of a PID namespace (whose parent pid reads 0), instead: a pipe from
            the parent, at EOF once the parent ended; or None.
    """
    _check(_libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    gone = parent is not None and os.getppid() != parent
    if watch_fd is not None:
        gone = gone or bool(select.select([watch_fd], [], [], 0)[0])
    if gone:
        os.kill(os.getpid(), sig)
        signal.pause()


def drop_privileges(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


# ---------------------------------------------------------------------------------------------
# cgroups v1, managed by the trusted parent: one group per sandbox, emptied and removed after it.


def _controllers() -> tuple[str, ...]:
    """The controllers a sandbox's cgroups are made in: pids and memory, and cpu where it is mounted."""
    cpu = (CGROUP_ROOT / CGROUP_CPU / "cpu.shares").exists()
    return CGROUP_CONTROLLERS + ((CGROUP_CPU,) if cpu else ())


def cgroup_paths(name: str, controllers=None) -> list[Path]:
    return [CGROUP_ROOT / c / "qkv" / name for c in (controllers or _controllers())]


def cgroup_create(name: str, *, max_pids: int, memory_bytes: int) -> list[str]:
    """Make the sandbox's cgroups (the pids and memory ones with their limits, and the cpu one where
    there is one, with the default share); their cgroup.procs files, for the zygote to join.

    Args:
        name: the sandbox's cgroup name, unique on the machine (the grader's pid and slot).
        max_pids: the most processes and threads the sandbox's processes may run at once.
        memory_bytes: the most memory they may use together, in bytes.
    """
    paths = cgroup_paths(name)
    for p in paths:
        p.mkdir(parents=True, exist_ok=True)
    (paths[0] / "pids.max").write_text(str(max_pids))
    (paths[1] / "memory.limit_in_bytes").write_text(str(memory_bytes))
    return [str(p / "cgroup.procs") for p in paths]


def cgroup_pids(name: str) -> list[int]:
    pids: set[int] = set()
    for procs in _cgroup_procs_files(name):  # read before every submission: kept cheap
        try:
            with open(procs, "rb") as f:
                pids.update(map(int, f.read().split()))
        except OSError:
            pass
    return sorted(pids)


@functools.lru_cache(maxsize=64)
def _cgroup_procs_files(name: str) -> tuple[str, ...]:
    return tuple(str(p / "cgroup.procs") for p in cgroup_paths(name, CGROUP_CONTROLLERS))


def cgroup_remove(name: str) -> None:
    for p in cgroup_paths(name):
        try:
            p.rmdir()
        except OSError:
            pass


def cgroup_sweep() -> None:
    """Remove the empty cgroups of grading processes that died without cleaning up (killed, say).

    Names are "<pid>-<slot>"; one whose pid no longer runs is stale, and rmdir only succeeds when empty.
    """
    for controller in _controllers():
        parent = CGROUP_ROOT / controller / "qkv"
        try:
            children = [p for p in parent.iterdir() if p.is_dir()]
        except OSError:
            continue
        for path in children:
            pid = path.name.split("-", 1)[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                try:
                    path.rmdir()
                except OSError:
                    pass


def pids_of_uid(uid: int) -> list[int]:
    """Every process whose real uid is `uid` (a sandbox slot's uid owns nothing else)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    out.append(int(entry.name))
            except OSError:
                pass
    return out


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layers:
    """Which isolation layers this machine supports for the children."""

    landlock: bool
    namespaces: bool
    cgroups: bool
    uid_drop: bool
    seccomp: bool = False

    NAMES = ("landlock", "namespaces", "cgroups", "uid_drop", "seccomp")

    @property
    def level(self) -> str:
        present = [n for n in self.NAMES if getattr(self, n)]
        if len(present) == len(self.NAMES):
            return "strong"
        return "reduced" if present else "rlimits-only"

    @property
    def missing(self) -> list[str]:
        return [n for n in self.NAMES if not getattr(self, n)]

    def describe(self) -> str:
        layers = ["rlimits", "fresh process per submission"]
        layers += [n for n in self.NAMES if getattr(self, n)]
        return f"{self.level} ({', '.join(layers)})"


def _try_in_child(fn) -> bool:
    pid = os.fork()
    if pid == 0:
        try:
            fn()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def probe() -> Layers:
    """Find out which layers work here, by trying each in a throwaway child."""
    root = os.geteuid() == 0
    landlock = landlock_abi() >= 1 and _try_in_child(lambda: landlock_restrict(["/usr"], []))
    namespaces = root and _try_in_child(unshare_zygote) and _try_in_child(unshare_ipc)
    cgroups = False
    if root:
        name = f"probe-{os.getpid()}"
        try:
            cgroup_create(name, max_pids=4, memory_bytes=64 << 20)
            cgroups = True
        except OSError:
            pass
        finally:
            cgroup_remove(name)
    uid_drop = root and _try_in_child(lambda: drop_privileges(SANDBOX_UID_BASE))
    return Layers(
        landlock,
        namespaces,
        cgroups,
        uid_drop,
        seccomp.supported() and _try_in_child(_seccomp_refuses_keys),
    )


def _seccomp_refuses_keys() -> None:
    """Install the filter and prove it: keyctl must now fail with EPERM."""
    seccomp.install()
    if _libc.syscall(seccomp.number("keyctl"), 0, 0, 0, 0, 0) != -1 or ctypes.get_errno() != 1:
        raise OSError("the seccomp filter let keyctl through")
