"""What the zygote does once, before its first fork, so that its children write to fewer of its pages.

A child shares the zygote's memory until it writes to it; each page it writes is copied for it, at
the cost of a page fault. `rehearse` builds lazily made state once, and `fill_free_blocks` takes the
allocator's scattered free blocks, so that a child writes to fewer pages.

More in docs/internals/sandbox.md.
"""

from __future__ import annotations

import ctypes
import linecache
import os
import re
import sys

import numpy as np

from qkv.sandbox import child, wire

REHEARSAL = b"""import numpy as np


def chain(X, W):
    S = X @ W.T
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A = A / A.sum(axis=-1, keepdims=True)
    return A @ X, A


def in_place(X, W):
    X *= 2.0
    return np.sqrt(np.abs(X)).mean(axis=0)


def raises(X, W):
    return X @ W


def stub(X, W):
    raise NotImplementedError
"""
ROUNDS = (
    16  # enough for the interpreter to specialise most of what a child runs (7 ms, once per zygote)
)
_FILLERS: list = []  # what fill_free_blocks took, kept for the zygote's lifetime
_STATS_LINE = re.compile(
    rb"^\s*(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s*$", re.M
)  # class, size, ..., free blocks


def rehearse(where: str) -> None:
    """A child's round, in this process, on the module above: load, then ROUNDS batches of calls.
    Its file goes in a folder of its own inside `where`, removed afterwards."""
    X = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    W = np.linspace(0.5, -0.5, 20).reshape(5, 4)
    arrays: list = []
    calls = [
        [name, wire.encode_value(X, arrays), wire.encode_value(W, arrays)]
        for name in ("chain", "in_place", "raises", "stub", "missing")
    ]
    inputs = b"".join(map(wire.array_bytes, arrays))
    region = (
        ctypes.c_char * len(inputs)
    )()  # as a child's inputs region (isolation.map_shared), unshared
    frame = wire.pack({"op": wire.Op.CALLS, "calls": calls, "inputs": [0, len(inputs)]})
    folder = os.path.join(where, "rehearsal")
    os.mkdir(folder, 0o700)
    path = os.path.join(folder, "rehearsal.py")
    with open(path, "wb") as f:
        f.write(REHEARSAL)
    req_r, req_w = os.pipe()
    answers = os.open(os.devnull, os.O_WRONLY)
    cwd = os.getcwd()
    os.chdir(folder)  # where a child works: its tracebacks' lines are found, as a child's are
    try:
        rehearsal = child.Child(req_r, answers, folder, "rehearsal.py", region)
        rehearsal.load()
        for _ in range(ROUNDS):
            # As the grader writes a batch's inputs (in_place changed them); a c_char array takes bytes.
            region[:] = inputs  # type: ignore[call-overload]
            os.write(req_w, frame)
            rehearsal.calls(*child._read_frame(req_r))
    finally:
        os.chdir(cwd)
        sys.modules.pop("rehearsal", None)
        linecache.cache.pop("rehearsal.py", None)
        for fd in (req_r, req_w, answers):
            os.close(fd)
        os.unlink(path)
        os.rmdir(folder)


def fill_free_blocks() -> None:
    """Take every free block of the allocator's pools (as many as its statistics list per size class).

    Once a size's free blocks are taken, the allocator starts a fresh pool for it: what is left
    free then is that pool's tail, where a child's objects should go.
    """
    for size, count in _free_blocks().items():
        # A bytearray's buffer comes from the pool of its size (plus one byte for a NUL).
        _FILLERS.extend(bytearray(size - 1) for _ in range(count))


def _free_blocks() -> dict[int, int]:
    """{block size: free blocks} from CPython's allocator statistics (empty elsewhere)."""
    if not hasattr(sys, "_debugmallocstats"):
        return {}
    read, write = os.pipe()
    saved = os.dup(2)
    try:
        os.dup2(write, 2)  # printed to stderr, with C's stdio
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    return {int(size): int(free) for _, size, free in _STATS_LINE.findall(b"".join(chunks))}
