"""A seccomp filter for the confined children: a small BPF program that refuses what no submission needs.

More in docs/internals/sandbox.md.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import platform

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
CLONE_NEW_ANY = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
CLONE_NEWIPC = 0x08000000
X32_SYSCALL_BIT = 0x40000000

# Refused outright; `unshare` and `clone` are refused by their flags (see program).
DENIED = (
    "add_key",
    "request_key",
    "keyctl",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "setns",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "name_to_handle_at",
    "open_by_handle_at",
    "kcmp",
    "pidfd_getfd",
    "swapon",
    "swapoff",
    "reboot",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
)

# System call numbers per architecture: (audit arch, {name: number}).
_TABLES = {
    "x86_64": (
        0xC000003E,
        {
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "chroot": 161,
            "unshare": 272,
            "setns": 308,
            "kexec_load": 246,
            "kexec_file_load": 320,
            "init_module": 175,
            "finit_module": 313,
            "delete_module": 176,
            "name_to_handle_at": 303,
            "open_by_handle_at": 304,
            "kcmp": 312,
            "pidfd_getfd": 438,
            "swapon": 167,
            "swapoff": 168,
            "reboot": 169,
            "clone": 56,
            "clone3": 435,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "chroot": 51,
            "unshare": 97,
            "setns": 268,
            "kexec_load": 104,
            "kexec_file_load": 294,
            "init_module": 105,
            "finit_module": 273,
            "delete_module": 106,
            "name_to_handle_at": 264,
            "open_by_handle_at": 265,
            "kcmp": 272,
            "pidfd_getfd": 438,
            "swapon": 224,
            "swapoff": 225,
            "reboot": 142,
            "clone": 220,
            "clone3": 435,
        },
    ),
}
# Numbered alike on every architecture (the unified table from 424 on).
_COMMON = {
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
}

# Classic BPF opcodes.
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_Filter))]


def supported() -> bool:
    return platform.machine() in _TABLES


def number(name: str) -> int:
    """A system call's number on this machine."""
    return {**_TABLES[platform.machine()][1], **_COMMON}[name]


def program(machine: str | None = None) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions for this machine's architecture."""
    arch, numbers = _TABLES[machine or platform.machine()]
    numbers = {**numbers, **_COMMON}
    eperm, allow = SECCOMP_RET_ERRNO | errno.EPERM, SECCOMP_RET_ALLOW
    prog = [(_LD_W_ABS, 0, 0, 4), (_JEQ_K, 1, 0, arch), (_RET_K, 0, 0, eperm), (_LD_W_ABS, 0, 0, 0)]
    if arch == _TABLES["x86_64"][0]:
        prog += [(_JGE_K, 0, 1, X32_SYSCALL_BIT), (_RET_K, 0, 0, eperm)]
    for name in DENIED:
        prog += [(_JEQ_K, 0, 1, numbers[name]), (_RET_K, 0, 0, eperm)]
    prog += [
        (_JEQ_K, 0, 1, numbers["clone3"]),
        (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS),
        (_JEQ_K, 0, 4, numbers["unshare"]),
        (
            _LD_W_ABS,
            0,
            0,
            16,
        ),  # the low half of its flags (little-endian); a high bit is EINVAL anyway
        (_JEQ_K, 0, 1, CLONE_NEWIPC),
        (_RET_K, 0, 0, allow),
        (_RET_K, 0, 0, eperm),
        (_JEQ_K, 0, 3, numbers["clone"]),
        (_LD_W_ABS, 0, 0, 16),  # the low half of clone's flags (little-endian)
        (_JSET_K, 0, 1, CLONE_NEW_ANY),
        (_RET_K, 0, 0, eperm),
        (_RET_K, 0, 0, allow),
    ]
    return prog


@functools.lru_cache(maxsize=1)
def compiled():
    """The filter as the kernel takes it, and libc's prctl: built once (in the zygote, before it forks)."""
    prog = program()
    filters = (_Filter * len(prog))(*(_Filter(*ins) for ins in prog))
    return _Program(len(prog), filters), filters, ctypes.CDLL(None, use_errno=True).prctl


def install() -> None:
    """Load the filter into this process (and every process it will start); it cannot be removed."""
    if not supported():
        raise OSError(f"no seccomp table for {platform.machine()}")
    fprog, _, prctl = compiled()
    for args in (
        (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
        (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
    ):
        if prctl(*args) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl: {errno.errorcode.get(err, err)}")
