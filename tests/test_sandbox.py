"""The sandbox and its wire format: untrusted replies, limits, cleanup."""

import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import qkv
from qkv.course.config import Limits
from qkv.sandbox import folders, isolation, wire
from qkv.sandbox.host import PACKAGE_ROOT, Sandbox
from qkv.shipped import compare

S = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])


@pytest.fixture(scope="module")
def sb():
    with Sandbox(Limits(call_timeout_s=1.0, import_timeout_s=2.0)) as box:
        yield box


def session(sb, source: str):
    return sb.open({"attention.py": source.encode()}, entry="attention.py")


def test_returned_values_cross_with_their_types(sb):
    body = (
        "import numpy as np\n"
        "def f(S):\n"
        "    return (S.astype(np.float32), [1, 2.5], None, 'x', S > 1, np.int64(3), True,\n"
        "            {'n': 4, 'mask': np.eye(2, dtype=bool)}, np.float64(0.5), float('nan'), 2**70)\n"
    )
    with session(sb, body) as s:
        r = s.call("f", [S])
    assert r.kind == "returned"
    f32, row, none, text, mask, i64, flag, table, f64, nan, big = r.value
    assert type(f32) is np.ndarray and f32.dtype == np.float32 and np.array_equal(f32, S)
    assert row == [1, 2.5] and [type(x) for x in row] == [int, float]
    assert none is None and text == "x" and flag is True
    assert mask.dtype == np.bool_ and np.array_equal(mask, S > 1)
    assert type(i64) is np.int64 and i64 == 3 and type(f64) is np.float64 and f64 == 0.5
    assert table["n"] == 4 and table["mask"].dtype == np.bool_ and table["mask"].trace() == 2
    assert type(nan) is float and nan != nan
    assert isinstance(big, wire.Other) and big.type_name == "int too large to send"


def test_a_list_longer_than_the_wire_takes_crosses_whole_as_what_it_holds(sb):
    n = wire.MAX_ITEMS + 10
    body = (
        "import numpy as np\n"
        "def f(S):\n"
        f"    n = {n}\n"
        "    keep = [i % 3 != 0 for i in range(n)]\n"
        "    return keep, list(range(n)), [np.array([0.5])] * n, ['x'] * n\n"
    )
    with session(sb, body) as s:
        r = s.call("f", [S])
    keep, counts, losses, words = r.value
    assert keep.dtype == np.bool_ and np.array_equal(keep, np.arange(n) % 3 != 0)
    assert counts.dtype.kind == "i" and np.array_equal(counts, np.arange(n))
    assert losses.dtype == np.float64 and losses.shape == (n, 1)
    assert isinstance(words, wire.Other)  # not numbers: too long to cross, named by its type


@pytest.mark.parametrize(
    "value",
    [
        4,
        -3,
        True,
        None,
        2.0,
        "two plus three",
        np.int32(7),
        np.bool_(False),
        np.arange(6).reshape(2, 3),
        np.tril(np.ones((3, 3), dtype=bool)),
        np.linspace(0, 1, 4, dtype=np.float32),
        (np.eye(2), 2),
        [1, [2, (3.0, None)]],
        {"heads": 2, "mask": np.ones(3, dtype=bool), 5: "five"},
    ],
)
def test_inputs_reach_student_code_as_the_suite_made_them(sb, value):
    """The student's function sees the value itself (its type and dtype), and hands it back."""
    body = (
        "def f(x):\n    return (type(x).__name__, getattr(x, 'dtype', None) and str(x.dtype), x)\n"
    )
    with session(sb, body) as s:
        r = s.call("f", [value])
    assert r.kind == "returned" and not any(r.inputs_changed)
    name, dtype, back = r.value
    assert name == type(value).__name__
    assert dtype == (str(value.dtype) if hasattr(value, "dtype") else None)
    assert compare.identical(back, value)


def test_an_input_list_changed_in_place_is_reported(sb):
    with session(sb, "def f(x, n):\n    x.append(n)\n    return len(x)\n") as s:
        r = s.call("f", [[1, 2], 3])
    assert r.kind == "returned" and r.value == 3 and r.inputs_changed == (True, False)


def test_values_the_wire_cannot_carry_cross_as_their_type_name(sb):
    body = (
        "import numpy as np\ndef f(S):\n    return (np.array(['a']), object(), 1j, ['x'] * 5000)\n"
    )
    with session(sb, body) as s:
        r = s.call("f", [S])
    assert [v.type_name for v in r.value] == [
        "array of <U1",
        "object",
        "complex",
        "list of 5000 items",
    ]


def test_the_grader_refuses_to_send_what_the_wire_cannot_carry(sb):
    with session(sb, "def f(x):\n    return x\n") as s, pytest.raises(TypeError, match="object"):
        s.call("f", [object()])


def test_modified_inputs_are_reported_one_by_one(sb):
    with session(
        sb, "def f(S, T, U):\n    S[0, 0] = 99\n    U.shape = U.shape[::-1]\n    return S\n"
    ) as s:
        r = s.call("f", [S, S, S])
    assert r.inputs_changed == (True, False, True)  # values, or only the shape


def test_a_timeout_kills_the_child_and_says_so(sb):
    with session(sb, "def f(S):\n    while True:\n        pass\n") as s:
        r = s.call("f", [S], timeout=0.3)
        assert r.kind == "timeout" and "did not return within 0.3 s" in r.message
        assert s.call("f", [S]).kind == "exited"


def test_a_function_with_its_own_limit_may_take_longer_in_a_batch_and_called_alone():
    source = "import time\ndef slow(S):\n    time.sleep(0.4)\n    return S\nquick = slow\n"
    with (
        Sandbox(Limits(call_timeout_s=0.2)) as box,
        box.open(
            {"attention.py": source.encode()}, entry="attention.py", timeouts={"slow": 1.5}
        ) as s,
    ):
        assert [r.kind for r in s.call_many([("slow", [S]), ("slow", [S])], stream=False)] == [
            "returned"
        ] * 2
        done = s.call_many([("slow", [S]), ("quick", [S])])
    assert [r.kind for r in done] == ["returned", "timeout"] and "within 0.2 s" in done[1].message


def test_garbage_written_to_every_descriptor_is_an_invalid_reply_not_a_crash(sb):
    source = (
        "import os\ndef f(S):\n    for fd in range(3, 12):\n        try:\n"
        "            os.write(fd, b'\\xff\\xff\\xff\\xff' + b'{' * 64)\n        except OSError:\n"
        "            pass\n    return S\n"
    )
    with session(sb, source) as s:
        r = s.call("f", [S])
    assert r.kind in ("invalid", "exited")


def test_files_cannot_be_written_beyond_the_size_limit(tmp_path):
    with (
        Sandbox(Limits(max_file_kb=1)) as box,
        session(box, "def f(S):\n    open('big', 'wb').write(b'x' * 100000)\n    return S\n") as s,
    ):
        r = s.call("f", [S])
    assert r.kind in ("raised", "exited")


def test_the_repository_is_out_of_reach(sb):

    with session(sb, f"def f(S):\n    return open({qkv.__file__!r}).read()\n") as s:
        r = s.call("f", [S])
    assert r.kind == "raised" and "Permission" in r.message


def test_a_child_cannot_reach_the_folder_of_the_child_before_it(sb):
    if not sb.layers.landlock:
        pytest.skip("this machine has no Landlock")
    first = session(sb, "def f(S):\n    return S\n")
    try:
        assert first.load.ok  # its folder stays until it is closed; the next child runs meanwhile

        secret = os.path.join(first.workdir, "attention.py")
        with session(sb, f"def f(S):\n    return open({secret!r}).read()\n") as second:
            r = second.call("f", [S])
        assert r.kind == "raised" and "Permission" in r.message
    finally:
        first.close()


def test_sandbox_cgroup_is_removed_on_close():
    box = Sandbox(Limits())
    paths = isolation.cgroup_paths(box.cgroup)
    if box.layers.cgroups:
        assert all(p.exists() for p in paths)
    box.close()
    assert not any(p.exists() for p in paths)


def test_each_sandbox_has_a_processor_share_of_its_own_whatever_its_submission_starts():
    """A submission that starts many processes, each in a session of its own (so an autogroup of its own),
    must not starve the one graded beside it into timeouts: every process of a sandbox is in its cpu cgroup."""
    if not (isolation.CGROUP_ROOT / isolation.CGROUP_CPU / "cpu.shares").exists():
        pytest.skip("no cgroup v1 processor controller here")
    source = (
        "import os, time\ndef f(S):\n    if os.fork() == 0:\n        os.setsid()\n        time.sleep(30)\n"
        "    return S\n"
    )
    with Sandbox(Limits()) as one, Sandbox(Limits()) as two:
        if not one.layers.cgroups:
            pytest.skip("no cgroups (not root)")
        with session(one, source) as s, session(two, source) as t:
            assert s.call("f", [S]).kind == "returned" and t.call("f", [S]).kind == "returned"
            groups = {}
            for box in (one, two):
                for pid in isolation.cgroup_pids(box.cgroup):
                    cpu = next(
                        line
                        for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines()
                        if line.split(":")[1].split(",").count("cpu")
                    )
                    groups.setdefault(box.cgroup, set()).add(cpu.split(":", 2)[2])
    assert groups == {box.cgroup: {f"/qkv/{box.cgroup}"} for box in (one, two)}


def _nested(levels: int):
    tree = None
    for _ in range(levels):
        tree = ["t", tree]
    return tree


@pytest.mark.parametrize(
    "tree, payload, message",
    [
        ([100_000, 100_000], b"", "larger than the payload"),
        ([10**9], b"", "shape is malformed"),
        ([1, 2, 3, 4, 5], b"", "shape is malformed"),
        ([-1], b"", "shape is malformed"),
        ([True, 2], b"", "shape is malformed"),
        ([2.0], b"", "shape is malformed"),
        (["3"], b"", "tree is malformed"),
        (["t", *[None] * 5000], b"", "tuple is malformed"),
        (["d", 1], b"", "dict is malformed"),
        (["d", ["l"], 1], b"", "dict is malformed"),
        (_nested(wire.MAX_NESTING + 1), b"", "malformed"),
        (["a", "<c16", [1]], bytes(16), "malformed"),
        (["a", "|O", [1]], bytes(8), "malformed"),
        (["a", "|b1", [2]], b"\x01\x07" + bytes(6), "other than 0 and 1"),
        (["s", "<i8"], b"", "larger than the payload"),
        (["f"], bytes(4), "larger than the payload"),
        (2**64, b"", "out of bounds"),
        ("x" * 70_000, b"", "too long"),
        ({"t": "pickle"}, b"", "malformed"),
        (3.5, b"", "malformed"),
        ([1, 2], b"", "larger than the payload"),
    ],
)
def test_lying_value_trees_are_rejected_before_allocating(tree, payload, message):
    with pytest.raises(wire.WireError, match=message):
        wire.decode_value(tree, payload)


@pytest.mark.parametrize(
    "head", [b"not json", b"[]", b'{"payload": -1}', b'{"payload": 99999999999}']
)
def test_bad_headers_are_rejected(head):
    with pytest.raises(wire.WireError):
        wire.parse_header(head)


def test_values_decode_from_a_writable_payload_as_views_each_its_own_stretch():
    arrays = []
    tree = wire.encode_value((S, S[0], S > 2, 2.0, "text"), arrays)
    payload = bytearray(b"".join(map(wire.array_bytes, arrays)))
    (a, b, mask, c, d), end = wire.decode_value(tree, payload)
    assert end == len(payload) and all(v.flags.writeable for v in (a, b, mask))
    a[...] = 0.0
    assert np.array_equal(b, S[0]) and np.array_equal(mask, S > 2) and mask.dtype == np.bool_
    assert type(c) is float and c == 2.0 and d == "text"
    (copied,), _ = wire.decode_value(["t", [3]], bytes(24))
    assert copied.flags.writeable


def test_frames_round_trip():
    arrays = []
    tree = wire.encode_value((S, None, [S[0], S[1]]), arrays)
    frame = wire.pack({"value": tree}, arrays)
    (size,) = struct.unpack(">I", frame[:4])
    header = wire.parse_header(frame[4 : 4 + size])
    value, _ = wire.decode_value(header["value"], frame[4 + size :])
    assert np.array_equal(value[0], S) and value[1] is None and np.array_equal(value[2][1], S[1])


def test_messages_from_the_child_become_one_printable_line(sb):
    with session(
        sb, "def f(S):\n    raise ValueError('two\\nlines\\x1b[31m and an escape')\n"
    ) as s:
        r = s.call("f", [S])
    assert r.kind == "raised" and "\n" not in r.message and "\x1b" not in r.message
    assert "two lines" in r.message


def test_empty_cgroups_of_dead_grading_processes_are_swept_at_start():
    if not isolation.probe().cgroups:
        pytest.skip("this machine has no writable cgroups v1")

    dead = subprocess.Popen(["true"])
    dead.wait()  # its pid names a cgroup that nothing will clean up
    name = f"{dead.pid}-0"
    isolation.cgroup_create(name, max_pids=4, memory_bytes=64 << 20)
    Sandbox(Limits()).close()
    assert not any(p.exists() for p in isolation.cgroup_paths(name))


FORGE_AT_IMPORT = (
    "import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, {frame!r})\n"
    "    except OSError:\n        pass\n{rest}\ndef f(S):\n    return S\n"
)


@pytest.mark.parametrize(
    "frame, rest, load_ok",
    [
        # then its own UNGRADABLE: `sys.exit()` ends the file before f (a file that raises runs on after the
        # line, and its f would honestly return S)
        (wire.LOADED_FRAME, "import sys\nsys.exit()", True),
        (
            wire.LOADED_FRAME[:9],
            "",
            False,
        ),  # half an answer, then the real one: one malformed frame
        (b"\x00\x00\x00\x02{}", "", False),
        (b"\xff" * 64, "", False),
    ],
)
def test_answers_written_before_a_load_cost_the_submission_only(sb, frame, rest, load_ok):
    with session(sb, FORGE_AT_IMPORT.format(frame=frame, rest=rest)) as s:
        assert s.load.ok is load_ok
        r = s.call("f", [S])
    assert r.kind in ("invalid", "exited") and not (load_ok and r.kind == "returned")
    if not load_ok:
        assert s.load.reason == "invalid" and "malformed" in s.load.message


def test_a_keeper_whose_grader_left_before_its_first_answer_ends_quietly(capfd):
    # A grading process killed while its sandbox was starting: the keeper's answer finds no one.
    box = Sandbox(Limits())
    box._control.close()  # before the keeper (still importing numpy) has answered
    assert box._proc.wait(timeout=60) == 0
    assert "Traceback" not in capfd.readouterr().err
    box.close()


def test_a_child_is_born_under_the_seccomp_filter_and_cannot_leave_its_namespaces(sb):
    """The zygote installs the filter once; every child inherits it. Only a new IPC namespace gets past
    the filter (each child makes one as root before dropping its uid), and then the kernel refuses it."""
    if not sb.layers.seccomp:
        pytest.skip("no seccomp on this machine")
    source = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def attempt(result):\n"
        "    return f'{result}/{ctypes.get_errno()}'\n"
        "def f(S):\n"
        "    filtered = [str(libc.prctl(21, 0, 0, 0, 0))]  # PR_GET_SECCOMP: 2, a filter\n"
        "    tried = [attempt(libc.unshare(0x10000000)),  # a user namespace\n"
        "             attempt(libc.unshare(0x08000000 | 0x10000000)),  # IPC and user together\n"
        "             attempt(libc.unshare(0x08000000)),  # IPC alone: past the filter, refused by the kernel\n"
        "             attempt(libc.syscall(250, 0, 0, 0, 0, 0)),  # keyctl\n"
        "             attempt(libc.syscall(101, 16, 1, 0, 0))]  # ptrace(PTRACE_ATTACH, 1)\n"
        "    raise RuntimeError(' '.join(filtered + tried))\n"
    )
    with session(sb, source) as s:
        r = s.call("f", [S])
    assert r.kind == "raised", r
    words = r.message.split("RuntimeError: ", 1)[-1].split(" (")[0].split()
    assert words == ["2", "-1/1", "-1/1", "-1/1", "-1/1", "-1/1"], r.message


def test_a_batch_whose_child_dies_comes_back_short_and_blames_no_call(sb):
    """Without `stream` a batch whose child dies comes back short (with the calls answered before,
    one by one), and no call is blamed (the caller asks again call by call); with `stream`, the one
    that did."""
    source = "import os\ndef ok(S):\n    return S\ndef crash(S):\n    os._exit(3)\n"
    calls = [("ok", [S]), ("crash", [S]), ("ok", [S])]
    with session(sb, source) as s:
        assert s.call_many(calls, stream=False) == []
    with session(sb, source) as s:
        assert [r.kind for r in s.call_many(calls, stream=False, one_by_one=True)] == ["returned"]
    with session(sb, source) as s:
        first, second = s.call_many(calls, stream=True)
    assert first.kind == "returned" and second.kind == "exited"
    assert "crash() ended (exit code 3)" in second.message


@pytest.mark.parametrize(
    "body, kind, text",
    [
        (
            "class E(Exception):\n    def __str__(self):\n        raise E()\ndef f(S):\n    raise E()\n",
            "raised",
            "raised E: (its message could not be shown",
        ),
        (
            "class A:\n    def __array__(self, *a, **k):\n        raise RuntimeError('no')\n"
            "    def __len__(self):\n        raise RuntimeError('no')\ndef f(S):\n    return A()\n",
            "returned",
            "",
        ),
        (
            "class L(list):\n    def __len__(self):\n        raise KeyboardInterrupt\ndef f(S):\n    return L([1.0])\n",
            "returned",
            "",
        ),
    ],
)
def test_exceptions_and_values_whose_own_methods_raise_cost_their_call_only(sb, body, kind, text):
    with session(sb, body + "def g(S):\n    return S\n") as s:
        r = s.call("f", [S])
        assert r.kind == kind and text in r.message
        assert s.call("g", [S]).kind == "returned"  # the child lives on
    if kind == "returned":
        assert isinstance(r.value, wire.Other)


@pytest.mark.parametrize(
    "prelude",
    [
        "import sys\nsys.stdout = None\nsys.stderr = None\n",
        "import sys\nclass Bad:\n    def write(self, s):\n        raise RuntimeError\n    def flush(self):\n"
        "        raise RuntimeError\nsys.stdout = sys.stderr = sys.__stdout__ = Bad()\n",
        "import os, sys\nsys.stdout = open(os.devnull, 'w')\nprint('quiet')\n",
    ],
)
def test_code_that_silences_or_replaces_its_output_is_still_answered(sb, prelude):
    with session(sb, prelude + "def f(S):\n    print('x')\n    return S\n") as s:
        assert s.load.ok, s.load.message
        r = s.call("f", [S])
    assert r.kind in (
        "returned",
        "raised",
    )  # print() into a stream that raises is the student's own error
    if "devnull" in prelude or "None" in prelude:
        assert r.kind == "returned"


def test_each_value_in_a_batch_is_what_its_call_returned_even_from_a_reused_buffer(sb):
    """A function that hands out one buffer, changed on each call, is judged per call as it returned."""
    source = (
        "import numpy as np\nBUF = np.empty(64)\ndef f(S):\n    out = BUF[:S.size].reshape(S.shape)\n"
        "    np.multiply(S, 2.0, out=out)\n    return out\n"
    )
    with session(sb, source) as s:
        results = s.call_many([("f", [S]), ("f", [S + 1]), ("f", [S[:1]])], stream=False)
    assert [r.kind for r in results] == ["returned"] * 3
    for r, arg in zip(results, (S, S + 1, S[:1])):
        assert np.array_equal(r.value, 2.0 * arg)


def test_the_values_of_one_exchange_are_bounded_in_the_grader(sb):
    """The grader keeps a batch's values until they are judged: a child returning big arrays call
    after call is cut off once they add up to wire.MAX_VALUES, with a reason, not held without end."""
    n = (wire.MAX_VALUES // 8) // 4 + 1  # each value a little over a quarter of the budget
    with session(sb, f"import numpy as np\ndef f(S):\n    return np.ones({n})\n") as s:
        results = s.call_many([("f", [S])] * 6, stream=True)
    assert [r.kind for r in results] == ["returned"] * 3 + ["invalid"]
    assert "add up to more than 16 MiB" in results[-1].message


FORGER = (
    "import sys\nfor m in list(sys.modules.values()):\n    if hasattr(m, '_changed'):\n"
    "        m._changed = lambda *a, **k: False\n"
    "def f(S, T):\n    S *= 2.0\n    return T\n"
)


@pytest.mark.parametrize("stream", [False, True])
def test_an_input_changed_in_place_is_read_back_by_the_grader_not_taken_from_the_child(sb, stream):
    with session(sb, FORGER) as s:
        results = s.call_many([("f", [S, S]), ("f", [S + 1, S])], stream=stream)
    assert [r.inputs_changed for r in results] == [(True, False), (True, False)]


def test_inputs_a_call_kept_from_an_earlier_batch_stay_as_they_came(sb):
    source = "KEPT = []\ndef keep(S):\n    KEPT.append(S)\n    return S\ndef first(S):\n    return KEPT[0]\n"
    with session(sb, source) as s:
        s.call_many([("keep", [S])], stream=False)
        r = s.call_many([("first", [S + 7.0])] * 3, stream=False)[0]
    assert np.array_equal(r.value, S)


@pytest.mark.parametrize("stream", [False, True])
def test_a_call_rewriting_an_input_handed_to_an_earlier_call_changes_it_in_either_mode(sb, stream):
    source = "KEPT = []\ndef f(S):\n    for a in KEPT:\n        a[...] = 0.0\n    KEPT.append(S)\n    return S.copy()\n"
    with session(sb, source) as s:
        results = s.call_many([("f", [S]), ("f", [S + 1])], stream=stream)
    assert [r.inputs_changed for r in results] == [(True,), (False,)]


def test_a_file_that_raises_at_its_top_level_goes_on_after_that_statement(sb):
    """A failing self-check (or a plot, or argparse finding no argument) in a file's top
    lines stops that statement only: the lines after it run too, as a notebook goes on after a cell that
    fails, and the reason travels with the load."""
    source = (
        "def f(S):\n    return S\n\nassert f(1) == 2, 'my own check'\n\ndef g(S):\n    return S\n"
    )
    with session(sb, source) as s:
        assert s.load.ok and s.load.stopped == (
            "loading raised AssertionError: my own check (line 4 in <module>: assert f(1) == 2, 'my own check'); "
            "the file's lines after it were run",
        )
        assert [s.call(name, [S]).kind for name in ("f", "g")] == ["returned", "returned"]


@pytest.mark.parametrize("stop", ["sys.exit()", "sys.exit(0)", "raise SystemExit", "exit()"])
def test_a_file_that_stops_itself_is_not_run_past_that_line(sb, stop):
    """`sys.exit()` after the functions, to keep a long experiment below from running: it does not run."""
    source = f"import sys\ndef f(S):\n    return S\n{stop}\nwhile True:\n    pass\n"
    with session(sb, source) as s:
        assert s.load.ok and "what the file defined before that is graded" in s.load.stopped[0]
        assert s.call("f", [S]).kind == "returned"


def test_a_file_whose_last_statement_raises_is_graded_on_what_it_defined(sb):
    with session(sb, "def f(S):\n    return S\n\nraise ValueError('late')\n") as s:
        assert s.load.ok and s.load.stopped == (
            "loading raised ValueError: late (line 4 in <module>: raise ValueError('late')); "
            "what the file defined before that is graded",
        )
        assert s.call("f", [S]).kind == "returned"


@pytest.mark.parametrize(
    "top",
    [
        "x = 1 / 0\n",
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('path')\nargs = p.parse_args()\n",  # an empty argv: SystemExit(2)
        "name = input('name? ')\n",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2]); plt.savefig('a.png')\n",  # two statements on one line
        "def deco(fn):\n    raise RuntimeError('deco')\n@deco\ndef h(S):\n    return S\n",  # raises on its decorator
        "for i in range(3):\n    print(i)\n    i / 0\n",
    ],
)
def test_a_file_whose_demo_raises_before_its_defs_is_graded_on_them(sb, top):
    with session(sb, top + "def f(S):\n    return S\n") as s:
        assert s.load.ok and "the file's lines after it were run" in s.load.stopped[0]
        assert s.call("f", [S]).kind == "returned"


def test_the_lines_run_after_a_failure_keep_the_files_future_imports(sb):
    source = (
        "from __future__ import annotations\nx = 1 / 0\n"
        "def f(S: Later) -> Later:\n    return S\n"
    )  # annotations not evaluated: Later is no name
    with session(sb, source) as s:
        assert s.load.ok and s.call("f", [S]).kind == "returned"


def test_a_file_that_defines_nothing_after_raising_is_ungradable_for_its_first_failure(sb):
    with session(sb, "x = 1 / 0\ny = [][1]\nz = 3\n") as s:
        assert not s.load.ok and "loading raised ZeroDivisionError" in s.load.message


def test_a_file_raising_on_every_line_loads_in_one_pass(sb):
    """Each failure moves on to later lines only: 2,000 failing lines cost one parse, not one each."""
    with session(sb, "x = 1 / 0\n" * 2000 + "def f(S):\n    return S\n") as s:
        assert s.load.ok and len(s.load.stopped) == 20  # the first ones are told
        assert s.call("f", [S]).kind == "returned"


def test_a_file_that_breaks_its_output_and_then_raises_is_still_graded_on_its_defs(sb):
    source = (
        "import sys, os\ndef f(S):\n    return S\nclass Bad:\n    def write(self, s):\n        raise RuntimeError\n"
        "    def flush(self):\n        raise RuntimeError\nsys.stdout = sys.stderr = Bad()\nos.close(1)\nraise ValueError('late')\n"
    )
    with session(sb, source) as s:
        assert s.load.ok and "loading raised ValueError: late" in s.load.stopped[0]
        assert s.call("f", [S]).kind == "returned"


@pytest.mark.parametrize(
    "top, f_kind, g_kind, note",
    [
        (
            "import matplotlib.pyplot as plt\n",
            "returned",
            "raised",
            True,
        ),  # loaded without it; using it fails
        ("from scipy.special import softmax as sp\n", "returned", "raised", True),
        (
            "try:\n    import scipy\nexcept ImportError:\n    scipy = None\n",
            "returned",
            "returned",
            False,
        ),  # its own fallback
        (
            "import contextlib\nscipy = None\nwith contextlib.suppress(ImportError):\n    import scipy\n",
            "returned",
            "returned",
            False,
        ),
    ],
)
def test_a_module_the_course_does_not_allow_costs_only_what_uses_it(sb, top, f_kind, g_kind, note):
    use = "plt.plot(S)" if "plt" in top else "sp(S)" if "sp" in top else "S if scipy is None else 0"
    source = top + f"def f(S):\n    return S\ndef g(S):\n    return {use}\n"
    with session(sb, source) as s:
        assert s.load.ok
        assert any("loaded without it (line" in t for t in s.load.stopped) == note
        f, g = s.call("f", [S]), s.call("g", [S])
    assert (f.kind, g.kind) == (f_kind, g_kind)
    if g_kind == "raised":
        assert "is not allowed in this course (allowed: numpy)" in g.message


def test_a_module_the_course_does_not_allow_imported_inside_a_call_is_refused_there(sb):
    with session(sb, "def f(S):\n    import scipy\n    return S\n") as s:
        r = s.call("f", [S])
    assert r.kind == "raised" and "import of scipy is not allowed in this course" in r.message


def test_a_module_of_the_students_own_is_imported_but_never_in_place_of_the_standard_librarys(sb):
    files = {
        "attention.py": b"import json, helpers\ndef f(S):\n    return S * helpers.K\n"
        b"def g(S):\n    return json.loads('2.0') * S\n"
        b"def h(S):\n    return helpers.broken(S)\n",
        "helpers.py": b"K = 2.0\ndef broken(S):\n    return S.nope\n",
        "json.py": b"raise SystemExit('a file named as the standard library is not imported')\n",
    }
    with sb.open(files, entry="attention.py") as s:
        assert s.load.ok and s.load.stopped == ()
        assert np.array_equal(s.call("f", [S]).value, 2 * S) and np.array_equal(
            s.call("g", [S]).value, 2 * S
        )
        broken = s.call("h", [S])
    assert (
        broken.kind == "raised"
        and "'numpy.ndarray' object has no attribute 'nope'" in broken.message
    )


def test_only_a_module_sent_beside_the_code_is_let_through(sb):
    with session(sb, "import helpers\ndef f(S):\n    return S\n") as s:
        assert s.load.ok and "import of helpers is not allowed" in s.load.stopped[0]


def test_a_tree_a_child_left_is_removed_however_deep_without_following_links(tmp_path):
    """5,000 nested folders (deeper than Python's recursion limit: shutil.rmtree raises RecursionError on
    them), a file at every level, links to a folder and a file outside: the tree goes, what the links
    point to stays."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    tree = tmp_path / "tree"
    tree.mkdir()
    fd = os.open(tree, os.O_RDONLY)
    try:
        for level in range(5000):
            os.mkdir("d", dir_fd=fd)
            os.close(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
            if level % 1000 == 0:
                os.symlink(outside, "to_outside", dir_fd=fd)
                os.symlink(outside / "keep.txt", "to_file", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    folders.remove_tree(str(tree))
    assert not tree.exists()
    assert (outside / "keep.txt").read_text() == "keep"
    link = tmp_path / "link"
    link.symlink_to(outside)
    folders.remove_tree(str(link))  # a link given as the tree: the link goes, not what it points to
    assert not link.is_symlink() and (outside / "keep.txt").exists()
    folders.remove_tree(str(tmp_path / "missing"))


def test_what_cannot_be_removed_is_left_without_looping(tmp_path, monkeypatch):
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f").write_text("x")
    (tree / "c").mkdir()
    rmdir = os.rmdir

    def refuse_b(path, *, dir_fd=None):
        if path == "b":
            raise PermissionError(1, "refused")
        return rmdir(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "rmdir", refuse_b)
    folders.remove_tree(str(tree))
    assert sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*")) == ["a", "a/b"]


def test_a_child_inherits_no_command_line_or_environment_naming_the_grader(sb):
    """A child is forked from the zygote, the keeper's fork: /proc/self/cmdline and environ of a
    child are the keeper's, so those must name no folder or setting of the grader's."""
    with session(sb, "import sys\ndef f(S):\n    return S\n") as s:
        assert s.call("f", [S]).kind == "returned"
    for pid in sb.zygote_pids:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().decode()
        with open(f"/proc/{pid}/environ", "rb") as f:
            environ = f.read().decode()
        for text in (cmdline, environ):
            assert str(PACKAGE_ROOT) not in text and "qkv-sandbox-" not in text
            assert "PYTHONPATH" not in text and "runtime_paths" not in text


SCAN = """import numpy as np


def f(x):
    region = x
    while isinstance(region, np.ndarray) and region.base is not None:
        region = region.base
    words = np.frombuffer(region, dtype=np.float64)
    return int(np.count_nonzero(words == 12345.678))
"""


def test_calls_sent_one_by_one_cannot_read_the_inputs_of_calls_not_yet_made(sb):
    """The child's inputs are views of its shared region. A batch puts every call's inputs there
    before the first runs (docs/internals/sandbox.md); sent one by one, the region read whole during
    the first call holds that call's inputs only, not the next call's."""
    secret = np.full(16, 12345.678)
    with session(sb, SCAN) as s:
        first, second = s.call_many([("f", [S]), ("f", [secret])], one_by_one=True)
    assert (first.kind, first.value) == ("returned", 0)
    assert (second.kind, second.value) == ("returned", 16)
    with session(sb, SCAN) as s:
        first, _ = s.call_many([("f", [S]), ("f", [secret])])
    assert (first.kind, first.value) == ("returned", 16)  # as the page says: a batch is all there
