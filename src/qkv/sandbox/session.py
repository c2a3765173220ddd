"""One submission's confined child, seen from the trusted side: load once, then answer calls.

A Session talks to its child over pipes in the wire format, with a wall-clock deadline on loading
and on every call that holds however the child floods its output; whatever comes back malformed
(any size, depth, number or type) is that submission's `invalid` outcome, never an exception here.
Closing kills every process the submission started and removes its folder, on every path.
"""

from __future__ import annotations

import dataclasses
import os
import select
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from qkv.sandbox import folders, replies, wire
from qkv.sandbox.inputs import InputsRegion
from qkv.sandbox.ops import ZygoteGone
from qkv.sandbox.replies import CallResult, LoadResult

DRAIN_BYTES = 1 << 20  # output read per wake-up: a flood cannot keep the reader from its deadline


@dataclass
class _Output:
    """A submission's stdout/stderr: the first `cap` bytes kept, the rest only counted."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        self.data += chunk[: max(room, 0)]
        self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> str:
        text = self.data.decode("utf-8", "replace")
        return text + (
            f"\n[... {self.dropped} more bytes of output dropped]" if self.dropped else ""
        )


class _Timeout(Exception):
    pass


class _Exited(Exception):
    pass


class Session:
    """One confined child: load the submission once, then answer calls until closed."""

    def __init__(
        self, sandbox, files: dict[str, bytes], entry: str, *, wait: bool = True, timeouts=None
    ):
        self.sandbox = sandbox
        self.entry = entry
        limits = sandbox.limits
        self.timeouts = dict(timeouts or {})  # function -> seconds, where not call_timeout_s
        self.output = _Output(limits.max_output_kb * 1024)
        self.status: int | None = None
        self.pid: int | None = None
        self._fds: tuple[int, ...] = ()
        self._region: InputsRegion | None = None  # where the calls' inputs go (see inputs.py)
        sandbox.clear()  # the cgroup holds nothing but the zygote when a submission joins it
        self.workdir = folders.private_folder(os.path.join(sandbox.scratch, "sub-"))
        self._files = list(files)
        try:
            self._start(files, entry)
        except BaseException:
            self.close()
            raise
        self._load_result = self._load(limits.import_timeout_s) if wait else None

    @property
    def load(self) -> LoadResult:
        """How loading went; read when first asked for (the child loads meanwhile)."""
        if self._load_result is None:
            self._load_result = self._load(self.sandbox.limits.import_timeout_s)
        return self._load_result

    def _start(self, files: dict[str, bytes], entry: str) -> None:
        sandbox = self.sandbox
        for name, data in files.items():
            fd = os.open(
                os.path.join(self.workdir, name),
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                0o666,
            )
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if sandbox.uid is not None:
                    os.fchown(fd, sandbox.uid, sandbox.uid)
            finally:
                os.close(fd)
        if sandbox.uid is not None:
            os.chown(self.workdir, sandbox.uid, sandbox.uid)
        self._region = InputsRegion()
        self._fds = (self._region.fd,)
        req_r, self._req = os.pipe()
        self._rep, rep_w = os.pipe()
        self._out, out_w = os.pipe()
        self._fds = (self._req, self._rep, self._out, self._region.fd)
        for fd in (self._req, self._rep, self._out):
            os.set_blocking(fd, False)
        try:  # the rest of what the child needs the zygote was told when it started
            reply = sandbox.ask(
                {"op": wire.Op.SPAWN, "workdir": self.workdir, "entry": entry},
                [req_r, rep_w, out_w, self._region.fd],
            )
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)
        if type(reply) is not int:  # the child's pid, or {"error": why there is none}
            why = reply.get("error") if isinstance(reply, dict) else None
            raise RuntimeError(f"sandbox: could not start a child ({why or 'no reason given'})")
        self.pid = reply

    # -- talking to the child ------------------------------------------------------------------

    def _frames(self, frame: bytes, timeout, received: bytes = b"", frames=None):
        """Send `frame`, then yield each reply frame (header, payload) as it comes in (after any
        bytes already `received`, or kept in `frames`). The deadline is `timeout` seconds (or what
        `timeout()` says, asked again each time) after the send, and again after each frame the
        child sends: a child that stops making progress is timed out however it floods its output.
        """
        seconds = timeout if callable(timeout) else lambda: timeout
        deadline = time.monotonic() + seconds()
        pending = memoryview(frame)
        frames = wire.Frames() if frames is None else frames
        frames.buf += received
        while True:
            while (got := frames.take()) is not None:
                yield got
                deadline = time.monotonic() + seconds()
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Timeout()
            readable, writable, _ = select.select(
                [self._rep, self._out], [self._req] if pending else [], [], left
            )
            if writable:
                try:
                    pending = pending[os.write(self._req, pending) :]
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    pending = pending[:0]
            if self._out in readable:
                self._drain_output()
            if self._rep in readable:
                chunk = os.read(self._rep, 1 << 20)
                if not chunk:
                    raise _Exited()
                frames.buf += chunk

    def _drain_output(self) -> None:
        """Read what output is waiting, at most DRAIN_BYTES: never loop on a pipe kept full."""
        got = 0
        try:
            while got < DRAIN_BYTES:
                chunk = os.read(self._out, 1 << 16)
                if not chunk:
                    return
                got += len(chunk)
                self.output.add(chunk)
        except (BlockingIOError, OSError):
            return

    def _load(self, timeout: float) -> LoadResult:
        try:  # most often the child has loaded by the time the grader asks: then no select, no parsing
            first = os.read(self._rep, 1 << 20)
        except BlockingIOError:
            first = b""
        if first.startswith(
            wire.LOADED_FRAME
        ):  # what follows in the same read is dropped, as below
            return LoadResult(True)
        try:
            header, _ = next(self._frames(b"", timeout, first))
        except _Timeout:
            self.close()
            return LoadResult(False, "timeout", f"loading the file took longer than {timeout:g} s")
        except _Exited:
            self.close()
            return LoadResult(
                False, "exited", f"the process ended while loading the file ({self.exit_text()})"
            )
        except Exception as e:  # anything malformed: this submission's problem, never the grader's
            self.close()
            return LoadResult(
                False, "invalid", f"the process sent a malformed message while loading ({_why(e)})"
            )
        try:
            result = replies.loaded(header)
        except Exception as e:
            result = LoadResult(
                False, "invalid", f"the process sent a malformed message while loading ({_why(e)})"
            )
        if not result.ok:
            self.close()
        return result

    @property
    def _inputs(self) -> InputsRegion:
        assert self._region is not None, "made when the session starts"
        return self._region

    def call(self, function: str, args, *, timeout: float | None = None) -> CallResult:
        """Call a student function on plain values; never raises for anything the child does.

        Args:
            function: the function's name.
            args: its inputs.
            timeout: seconds the call may take, instead of the function's limit.
        """
        return self.call_many([(function, args)], timeout=timeout)[0]

    def call_many(
        self, calls, *, timeout: float | None = None, stream: bool = True, one_by_one: bool = False
    ) -> list[CallResult]:
        """Run [(function, args), ...] in order in one exchange; never raises for anything the child does.

        Each call may take its function's limit (`timeout`, else `timeouts` or call_timeout_s).
        With `stream` each call is bounded on its own, and when the child stops the last result
        says why (timeout, exited, invalid). Without it the largest limit bounds the batch, which
        comes back short with no failure when it stops (which call is to blame is unknown). With
        `one_by_one`, each call's inputs are written, and the call sent, once the one before it
        returned (each bounded on its own): the child never holds an input of a call not made.

        Args:
            calls: (function, args) pairs.
            timeout: seconds each call may take, instead of its function's limit.
            stream: answer call by call; one_by_one: send call by call (see above).
        """
        if not calls:
            return []
        if self.pid is None or self.status is not None or not self.load.ok:
            return [CallResult("exited", message="the child process is no longer running")]
        limits = [self.limit(function) if timeout is None else timeout for function, _ in calls]
        trees, inputs = [], []
        for f, args in calls:
            tree: list[Any] = [f]
            own: list[Any] = []
            for a in args:
                arrays: list[Any] = []
                own.append(arrays)
                tree.append(wire.encode_value(a, arrays, strict=True))
            trees.append(tree)
            inputs.append(own)
        done: list[CallResult] = []
        batches: list = []
        held = 0  # bytes of values received: this process keeps them until they are judged
        try:
            if one_by_one:
                self._inputs.reserve(inputs)
                frames = wire.Frames()
                for tree, own, limit in zip(trees, inputs, limits):
                    batches.append(batch := self._inputs.write([own]))
                    call = {"op": wire.Op.CALLS, "calls": [tree], "inputs": batch.where}
                    header, payload = next(self._frames(wire.pack(call), limit, frames=frames))
                    held = self._took(held, payload, calls[len(done) : len(done) + 1], header, done)
                return self._seen(done, batches)
            batches.append(batch := self._inputs.write(inputs))
            frame = wire.pack(
                {"op": wire.Op.CALLS, "calls": trees, "stream": stream, "inputs": batch.where}
            )
            # Streamed, the deadline is the next unanswered call's (the generator reads it after each frame).
            bound = (lambda: limits[min(len(done), len(limits) - 1)]) if stream else max(limits)
            for header, payload in self._frames(frame, bound):
                held = self._took(held, payload, calls[len(done) :], header, done)
                if len(done) == len(calls):
                    return self._seen(done, batches)
        except _Timeout:
            ending = "timeout"
        except _Exited:
            ending = "exited"
        except Exception as e:  # a malformed reply of any kind
            ending = f"invalid: {_why(e)}"
        done = self._seen(done, batches)  # first: close() closes the region's file
        self.close()
        if not stream:
            return done
        function = calls[len(done)][0]
        return [*done, replies.ending(ending, function, limits[len(done)], self.exit_text)]

    def _took(self, held: int, payload, calls, header: dict, done: list) -> int:
        """Add one reply frame's results to `done`; the bytes of values held so far, bounded."""
        held += len(payload)
        if held > wire.MAX_VALUES:
            raise wire.WireError(f"values returned add up to more than {wire.MAX_VALUES >> 20} MiB")
        stopped = self._load_result.stopped if self._load_result else ()
        mib = self.sandbox.limits.memory_mb
        done += replies.results(
            calls, header, payload, entry=self.entry, stopped=stopped, memory_mb=mib
        )
        return held

    def limit(self, function: str) -> float:
        """Seconds one call of `function` may take."""
        return self.timeouts.get(function, self.sandbox.limits.call_timeout_s)

    def _seen(self, results: list[CallResult], batches) -> list[CallResult]:
        """The results of the exchange's first calls, each input marked changed that the inputs
        region shows changed at its end, whatever the child says (its word still counts for what
        only it sees: an input reshaped). `batches`: the exchange's, or one per call."""
        seen: list[list[bool] | None]
        if len(batches) == 1 and len(batches[0].stretches) > 1:
            found = self._inputs.changes(batches[0], len(results))
            seen = [*found] if found is not None else [None for _ in results]
        else:
            seen = self._inputs.changes_each(batches[: len(results)])
        return [
            dataclasses.replace(
                r,
                inputs_changed=tuple(
                    c or (k < len(r.inputs_changed) and r.inputs_changed[k])
                    for k, c in enumerate(changed)
                ),
            )
            if r.kind == "returned" and changed and any(changed)
            else r
            for r, changed in zip(results, seen)
        ]

    # -- ending ----------------------------------------------------------------------------------

    def exit_text(self) -> str:
        if (
            self.status is None
        ):  # never reaped: the sandbox itself was killed, as the memory limit does
            return "its sandbox was stopped, most likely at the memory limit"
        if os.WIFSIGNALED(self.status):
            sig = os.WTERMSIG(self.status)
            if sig == signal.SIGXCPU:
                return f"stopped after using {self.sandbox.limits.cpu_s} s of CPU time"
            if sig == signal.SIGKILL:
                return "killed"
            return f"killed by signal {signal.Signals(sig).name}"
        return f"exit code {os.WEXITSTATUS(self.status)}"

    def close(self, *, wait: bool = True) -> None:
        """Kill everything the submission started, reap it, and remove its folder.

        The zygote kills and reaps the child and its orphans (it is their subreaper, or the init of
        their PID namespace). With `wait`, this returns once they are gone (and `status` says how
        the child ended); without it, the zygote does that while the grader goes on, and the
        sandbox makes sure of it before the next submission starts (Sandbox.clear).
        """
        if self._fds:
            self._drain_output()
            for fd in self._fds:
                os.close(fd)
            self._fds = ()
        try:
            if self.pid is not None and not wait:
                self.sandbox.reap_later(self.pid)
            elif self.pid is not None:
                status = self.sandbox.ask({"op": wire.Op.REAP, "pid": self.pid})  # its wait status
                self.status = status if type(status) is int else 0
            self.pid = None
            if wait:
                self.sandbox.clear()
        except ZygoteGone:
            self.sandbox.broken = True  # the next submission gets a new zygote in a clean cgroup
        finally:
            self.pid = None
            _remove(self.workdir, self._files)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _remove(folder: str, names) -> None:
    """A submission's folder: the files it was given, then itself (with whatever else the child left
    in it, when there is more)."""
    try:
        for name in names:
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)
    except OSError:
        folders.remove_tree(folder)


def _why(e: BaseException) -> str:
    return str(e)[:120] if isinstance(e, wire.WireError) else type(e).__name__
