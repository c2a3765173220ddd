# Tries every way out of its namespaces the filter must refuse, at import and in a call: a user
# namespace (alone, or with the IPC namespace the filter lets a child make for itself as root),
# clone with new namespaces, clone3 (whose flags a filter cannot read), setns; then leaves SysV
# shared memory behind in whatever namespace it ended up in, for the next submission to find.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
SYS_CLONE, SYS_CLONE3, SYS_SETNS = 56, 435, 308
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWNET, CLONE_NEWPID = 0x08000000, 0x10000000, 0x40000000, 0x20000000
SIGCHLD = 17
KEY = 0x51_4B_56


def _escape() -> list[str]:
    tried = []
    for flags in (CLONE_NEWUSER, CLONE_NEWUSER | CLONE_NEWIPC, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWIPC | CLONE_NEWNET):
        tried.append(str(libc.unshare(flags)))
    pid = libc.syscall(SYS_CLONE, CLONE_NEWUSER | CLONE_NEWIPC | SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)
    tried.append("-1" if pid < 0 else "child")
    tried.append(str(libc.syscall(SYS_CLONE3, 0, 0)))
    tried.append(str(libc.syscall(SYS_SETNS, 0, 0)))
    shmid = libc.shmget(KEY, 4096, 0o1000 | 0o666)
    if shmid >= 0:
        addr = libc.shmat(shmid, None, 0)
        if addr not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(addr, b"qkv-marker", 10)
    return tried


AT_IMPORT = _escape()


def softmax(S):
    raise RuntimeError("escapes gave " + " ".join(AT_IMPORT + _escape()))
