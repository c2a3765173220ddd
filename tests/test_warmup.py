"""What the zygote does before its first fork leaves nothing a child could see or be changed by."""

import linecache
import os
import random
import socket
import sys

import numpy as np

from qkv.course.config import Limits
from qkv.sandbox import folders, warmup, zygote
from qkv.sandbox.host import Sandbox


def test_the_rehearsal_leaves_no_module_cached_line_random_state_or_working_folder(tmp_path):
    numpy_state = np.random.get_state()[1].copy()
    modules, lines, state, cwd = (
        set(sys.modules),
        dict(linecache.cache),
        random.getstate(),
        os.getcwd(),
    )
    warmup.rehearse(str(tmp_path))
    assert set(sys.modules) == modules and linecache.cache == lines and not any(tmp_path.iterdir())
    assert random.getstate() == state and os.getcwd() == cwd
    assert np.array_equal(np.random.get_state()[1], numpy_state)


def test_the_allocators_free_blocks_are_read_per_size_class_and_taken():
    free = warmup._free_blocks()
    if hasattr(sys, "_debugmallocstats"):  # CPython
        assert 16 in free and 512 in free and all(n >= 0 for n in free.values())
    taken = len(warmup._FILLERS)
    warmup.fill_free_blocks()
    assert len(warmup._FILLERS) > taken or not any(free.values())


def test_a_submission_named_like_the_rehearsal_loads_its_own_module():
    with (
        Sandbox(Limits()) as box,
        box.open(
            {"rehearsal.py": b"def chain(X, W):\n    return X + 1\n"}, entry="rehearsal.py"
        ) as s,
    ):
        r = s.call("chain", [np.zeros((2, 2)), np.zeros((2, 2))])
    assert r.kind == "returned" and np.array_equal(r.value, np.ones((2, 2)))


def test_a_private_folder_is_new_private_and_named_apart_even_when_a_name_is_taken(
    tmp_path, monkeypatch
):

    draws = iter([b"\x01" * 8, b"\x01" * 8, b"\x02" * 8])
    monkeypatch.setattr(folders.os, "urandom", lambda n: next(draws))
    first = folders.private_folder(str(tmp_path / "box-"))
    second = folders.private_folder(
        str(tmp_path / "box-")
    )  # its first name is taken: it draws again
    assert first == str(tmp_path / ("box-" + "01" * 8)) and second == str(
        tmp_path / ("box-" + "02" * 8)
    )
    assert all(os.stat(p).st_mode & 0o777 == 0o700 for p in (first, second))


def test_descriptors_passed_with_a_request_are_received_with_it():

    ours, theirs = socket.socketpair()
    r, w = os.pipe()
    try:
        socket.send_fds(ours, [b'{"op": "spawn"}'], [r, w])
        data, fds = zygote._recv_fds(theirs, zygote.CONTROL_BYTES, 3)
        assert data == b'{"op": "spawn"}' and len(fds) == 2
        os.write(fds[1], b"x")  # the received descriptors are the pipe's ends
        assert os.read(fds[0], 1) == b"x"
        for fd in fds:
            os.close(fd)
    finally:
        for fd in (r, w):
            os.close(fd)
        ours.close()
        theirs.close()
