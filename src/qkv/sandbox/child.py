"""The confined child: one submission's process, from the zygote's fork to its last reply.

The zygote (zygote.py) forks it with the submission's pipes and a Landlock ruleset of its own, under
the seccomp filter the zygote installed on itself. It confines itself (an IPC namespace, rlimits,
Landlock, an unprivileged uid, death with the zygote, the import gate), loads the submission's entry
file and answers calls in the wire format until the grader closes its request pipe. It never sees an
expected value; which inputs it sees, and when: docs/internals/sandbox.md.
"""

from __future__ import annotations

import _signal
import ctypes
import json
import math
import os
import resource
import signal
import sys
import traceback
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from qkv.sandbox import imports, isolation, traces, wire
from qkv.sandbox.pieces import after, split
from qkv.sandbox.returned import long_lists_as_arrays

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
MAX_STOPS = 20  # of a file's top-level statements that raised, the first so many are told
# The inputs region's type, made once in the zygote.
INPUTS_REGION = ctypes.c_char * wire.INPUTS_BYTES
_F8 = np.dtype("<f8")


@dataclass(frozen=True)
class Setup:
    """What every child of one zygote does alike, worked out before the first fork."""

    zygote_pid: int
    namespaces: bool
    uid: int | None
    limits: tuple  # ((resource, (soft, hard)), ...): all but RLIMIT_AS, which depends on the child
    memory: int  # bytes a child may map beyond what it has mapped when it confines itself
    # sys.path: the standard library through the opened folders (imports.py).
    import_path: tuple[str, ...]
    gate: imports.Gate  # the import gate, told the submission's own module name by each child
    keep: frozenset  # the zygote's descriptors a child keeps: 0-2 and the opened folders
    devnull: int  # the zygote's /dev/null, a child's stdin


def main(setup: Setup, fds, workdir: str, entry: str, ruleset: int | None) -> None:
    """Serve one submission in the process just forked, then end it: never returns.

    Args:
        setup: what every child of this zygote does alike.
        fds: the request, reply and output pipes and the inputs region, as the grader sent them.
        workdir, entry: the submission's folder, where the child works, and the file it loads there.
        ruleset: the Landlock ruleset the zygote built for this child, or None without Landlock.
    """
    req, rep, out, inputs = fds
    code = 0
    try:
        os.setsid()
        os.dup2(setup.devnull, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        # Mapped before the limits: it is not the submission's memory.
        shared = isolation.map_shared(inputs, INPUTS_REGION)
        keep = sorted(setup.keep.union((req, rep) if ruleset is None else (req, rep, ruleset)))
        # The zygote's control socket is among those closed, and the inputs' file.
        for low, high in zip(keep, [*keep[1:], 65536]):
            os.closerange(low + 1, high)
        # _signal, as signal.signal would build enums to say what it replaced.
        _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
        confine(setup, workdir, entry, ruleset)
        Child(req, rep, workdir, entry, shared, setup.gate).serve()
    except EOFError:
        pass
    except BaseException:
        code = 70  # first: printing fails too when the student patched builtins
        traceback.print_exc()
    finally:
        os._exit(code)


def confine(setup: Setup, workdir: str, entry: str, ruleset: int | None) -> None:
    """Every layer, in an order where each step still has the rights it needs.

    Args:
        setup: what every child of this zygote does alike.
        workdir, entry: the submission's folder, where the child works, and the file it loads there.
        ruleset: the Landlock ruleset the zygote built for this child, or None without Landlock.
    """
    if setup.namespaces:
        isolation.unshare_ipc()  # SysV objects and queues die with this submission
    for res, limits in setup.limits:
        resource.setrlimit(res, limits)
    resource.setrlimit(resource.RLIMIT_AS, (_mapped() + setup.memory,) * 2)
    if ruleset is not None:
        isolation.landlock_enforce(ruleset)  # built by the zygote for this child
    if setup.uid is not None:
        isolation.drop_privileges(setup.uid)
    # After the uid drop, which clears the request; the zygote's pid says whether it already ended.
    isolation.die_with_parent(signal.SIGKILL, parent=setup.zygote_pid)
    os.chdir(workdir)
    os.environ["HOME"] = "."  # its own folder, without naming the grader's scratch path
    imports.restrict(setup.import_path, setup.gate, own=os.path.splitext(entry)[0], home=workdir)


def _mapped() -> int:
    """Bytes this process has mapped (its address space, as RLIMIT_AS counts it)."""
    statm = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        return int(os.read(statm, 256).split()[0]) * PAGE_SIZE
    finally:
        os.close(statm)


def _read_file(path: str) -> bytes:
    """A file's bytes, without the io objects open() would build around them."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_exact(fd: int, n: int) -> bytearray:
    """n bytes, read into a buffer of their own."""
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = os.readv(fd, [view[got:]])
        if not k:
            raise EOFError
        got += k
    return buf


def _read_frame(fd: int):
    (size,) = wire.LENGTH.unpack(_read_exact(fd, wire.LENGTH.size))
    header = json.loads(_read_exact(fd, size))
    return header, _read_exact(fd, header["payload"])


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _defines_functions(module) -> bool:
    """Whether the student's module holds a function of its own (one its code defined)."""
    return any(
        type(v) is types.FunctionType and v.__module__ == module.__name__
        for v in list(vars(module).values())
    )


def _changed(value, original: bytes, tree) -> bool:
    """Whether an input is no longer what it came as: a float64 array whose values, bit for bit, or
    shape changed, or any other value whose tree or bytes as it would travel now differ."""
    if type(tree) is list and (not tree or type(tree[0]) is int):  # a float64 array: its shape
        if not isinstance(value, np.ndarray) or list(value.shape) != tree:
            return True
        try:
            return np.asarray(value, dtype="<f8").tobytes() != original
        except (TypeError, ValueError):  # its dtype changed in place to one that holds no numbers
            return True
    arrays: list = []
    now = wire.encode_value(value, arrays)
    return now != tree or b"".join(map(wire.array_bytes, arrays)) != original


class Child:
    """The submission's module, loaded once, and the calls the grader makes into it.

    `inputs`: the inputs region (see wire.py), a writable buffer the grader reads back."""

    def __init__(
        self, req: int, rep: int, workdir: str, entry: str, inputs, gate: imports.Gate | None = None
    ):
        self.req, self.rep, self.entry = req, rep, entry
        self.inputs = inputs
        self.gate = gate  # the import gate in force, told when the file's own top lines run
        self.module: types.ModuleType | None = None
        self.path = os.path.join(workdir, entry)
        # Code, tracebacks and warnings name the file as the student does, relative to the working
        # folder: the folder's random name would make the same submission's output differ per run.
        self.filename = entry
        # A notebook's map from lines to cells, written beside the code by the grader.
        self.cells = None
        # The output pipe's streams, whatever the student puts in their place.
        self.streams = (sys.stdout, sys.stderr)

    def reply(self, header: dict, arrays=()) -> None:
        self.send(wire.pack(header, arrays))

    def send(self, frame: bytes) -> None:
        for stream in self.streams:  # what was printed goes out before the answer
            try:
                stream.flush()
            except (OSError, ValueError):  # closed by the student, or the pipe is gone
                pass
        _write(self.rep, frame)

    def load(self) -> None:
        try:
            source = _read_file(self.path)
            if os.access(wire.CELL_MAP_FILE, os.F_OK):
                self.cells = json.loads(_read_file(wire.CELL_MAP_FILE)[: 1 << 20])
            pieces = split(source, self.filename, self.cells)
        except SyntaxError as e:
            self.reply({"op": wire.Op.UNGRADABLE, "reason": "syntax", "message": self._syntax(e)})
            return
        except (ValueError, OSError) as e:
            self.reply({"op": wire.Op.UNGRADABLE, "reason": "unreadable", "message": str(e)[:200]})
            return
        name = os.path.splitext(self.entry)[0]  # the student's module, named as they name it
        module = type(sys)(name)
        module.__file__ = self.path
        sys.modules[name] = module
        # A notebook's cells that did not run to their end, as Jupyter would go on after them.
        stopped = []
        cell_count, first_failure = len(pieces) - 1, None  # pieces grows as a file goes on
        resumed = False
        for label, piece, text in pieces:
            if isinstance(piece, SyntaxError):
                stopped.append(("syntax", f"{self._syntax(piece)} (that cell did not run)"))
                continue
            if self.gate is not None:
                self.gate.loading = (self.filename, text)
            try:
                exec(piece, module.__dict__)
            except MemoryError:
                failure, rest = ("memory", "ran out of memory while loading", ""), None
            except BaseException as e:  # SystemExit, KeyboardInterrupt at import: the student's
                failure = traces.load_failure(e, self.filename, self.cells)
                rest = after(text, self.filename, e) if self.cells is None and not resumed else None
            else:
                continue
            where = f" ({failure[2]})" if failure[2] else ""
            first_failure = first_failure or failure
            if label is not None:
                stopped.append((failure[0], f"{label} stopped: {failure[1]}{where}"))
            elif resumed or rest or (self.cells is None and _defines_functions(module)):
                # A file goes on.
                then = (
                    "the file's lines after it were run"
                    if rest or resumed
                    else "what the file defined before that is graded"
                )
                # Said once (`plot(A); savefig(f)` fails twice).
                said = (failure[0], f"{failure[1]}{where}; {then}")
                stopped += [said] if len(stopped) < MAX_STOPS and said not in stopped else []
                pieces += [(None, statement, text) for statement in rest or ()]
                resumed = resumed or bool(rest)
            else:  # nothing to go on with (a notebook's first lines are the grader's own)
                self._ungradable(*failure)
                return
        # A file that ran on, and defined nothing.
        if self.cells is None and first_failure and not _defines_functions(module):
            self._ungradable(*first_failure)
            return
        refused = self._refused()
        # It imported what it may not, and defined nothing.
        if refused and not _defines_functions(module):
            message, where = refused[0]
            self.reply(
                {"op": wire.Op.UNGRADABLE, "reason": "import", "message": message, "where": where}
            )
            return
        stopped += [
            ("import", f"{message}: loaded without it ({where}); using it fails")
            for message, where in refused
        ]
        if stopped and len(stopped) == cell_count:  # not one cell ran: as a file that does not load
            self.reply(
                {"op": wire.Op.UNGRADABLE, "reason": stopped[0][0], "message": stopped[0][1]}
            )
            return
        self.module = module
        if not stopped:
            self.send(wire.LOADED_FRAME)
            return
        try:  # into the student's output too, through the stream the child was born with
            self.streams[0].write("".join(f"{text}\n" for _, text in stopped))
        except Exception:
            pass
        self.reply({"op": wire.Op.LOADED, "stopped": [text for _, text in stopped]})

    def _ungradable(self, reason: str, message: str, where: str) -> None:
        """Reply that the file cannot be graded, for what its top lines raised."""
        self._refused()
        self.reply({"op": wire.Op.UNGRADABLE, "reason": reason, "message": message, "where": where})

    def _refused(self) -> list[tuple[str, str]]:
        """(the course's line, where) for each module the file's top lines imported that the course does
        not allow (see imports.Refused), once each; and the gate back to refusing outright."""
        if self.gate is None:
            return []
        self.gate.loading = None
        seen: dict = {}
        for message, line, code in self.gate.refused:
            seen.setdefault(message, f"{traces.where(line, self.cells)} in <module>: {code}"[:160])
        return list(seen.items())

    def _syntax(self, e: SyntaxError) -> str:
        # The compiler gave up on the whole file without a line (see pieces._compile).
        if not e.lineno:
            return f"syntax error: {e.msg}"
        where = traces.where(e.lineno, self.cells)
        return f"syntax error {'in' if where.startswith('cell') else 'on'} {where}: {e.msg}"

    def call(self, function: str, args, originals) -> tuple[list, list]:
        """Run one call; its reply (see wire.Op) and its arrays' bytes, taken as it returns (code
        that hands out one buffer, changing it on each call, has each value judged as it returned).

        Args:
            function: the name of the student's function.
            args: its inputs, float64 arrays as views of the inputs region.
            originals: each input as it came, (bytes, tree): the reply says which the call changed.
        """
        fn = getattr(self.module, function, None)
        if not callable(fn):
            return [wire.Op.MISSING], []
        try:
            result = fn(*args)
        except NotImplementedError:
            return [wire.Op.NOT_IMPLEMENTED], []
        except MemoryError:
            return [wire.Op.MEMORY], []
        except BaseException as e:  # RecursionError, SystemExit, ...: the student's, as raised
            return traces.raised(e, self.filename, self.cells), []
        arrays: list[Any] = []
        try:
            value = wire.encode_value(long_lists_as_arrays(result), arrays)
            arrays = [wire.array_bytes(a) for a in arrays]
        except MemoryError:
            return [wire.Op.MEMORY], []
        except BaseException:
            value, arrays = [wire.OTHER, type(result).__name__[:80]], []
        try:
            changed = [_changed(a, *original) for a, original in zip(args, originals)]
        except MemoryError:
            return [wire.Op.MEMORY], []
        return [wire.Op.RETURNED, value, changed], arrays

    def calls(self, header: dict, payload: bytes) -> None:
        """Run a batch of calls in order and answer in as few frames as the limits allow (one, as a
        rule), or, with `stream`, one frame per call as it returns so the grader can time each.
        The calls' inputs are views of the inputs region, where the header says they are."""
        results, arrays, head, size = [], [], 0, 0
        stream = header.get("stream")
        offset, length = header["inputs"]
        region = self.inputs
        if not 0 <= offset <= offset + length <= len(region):
            raise wire.WireError("the inputs are not in the inputs region")
        value: object
        for function, *trees in header["calls"]:
            args, originals = [], []
            for tree in trees:
                # A float64 array: its shape.
                if (type(tree) is list and tree and type(tree[0]) is int) or tree == []:
                    end = offset + 8 * math.prod(tree)
                    value = np.frombuffer(region, _F8, (end - offset) >> 3, offset).reshape(tree)
                else:  # any other value, decoded the careful way
                    value, end = wire.decode_value(tree, region, offset)
                args.append(value)
                originals.append((region[offset:end], tree))
                offset = end
            reply, out = self.call(function, args, originals)
            results.append(reply)
            if out:
                arrays += out
                size += sum(map(len, out))
            if reply[0] == wire.Op.RAISED:  # the only reply that carries text
                head += sum(len(text) for text in reply[2:])
            head += 256 + 64 * len(out)
            if stream or head > wire.MAX_HEADER // 4 or size > wire.MAX_PAYLOAD // 4:
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
