"""A submission's inputs region: where the grader puts the inputs of each batch of calls, and
reads them back once the calls have run.

The region is a memory file (memfd) of wire.INPUTS_BYTES, sparse and sealed at that size. The
grader writes a batch's inputs there and the frame says where; the child has the file mapped
(isolation.map_shared) and its calls get views of those bytes. So whether a call changed its
inputs, the grader sees for itself, in the file: the child is the student's process and its word
on that could be anything. Batches go one after another through the region (wrapping at its end,
never within an exchange), so an input a call kept from an earlier batch stays as it came.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass

from qkv.sandbox import wire


@dataclass(frozen=True)
class Batch:
    """One batch's inputs as written: where in the region, their bytes, and per call the stretch of
    those bytes each of its inputs takes."""

    start: int
    data: bytes
    stretches: list  # [[(begin, end), ...] per call], offsets into `data`

    @property
    def where(self) -> list[int]:
        """[start, length]: what the frame tells the child."""
        return [self.start, len(self.data)]


class InputsRegion:
    """A new region; its file (`fd`) stays open until the session closes it with its pipes."""

    def __init__(self):
        self.fd = os.memfd_create("qkv-inputs", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(self.fd, wire.INPUTS_BYTES)
            # the child can neither shrink it under the grader's reads nor grow it
            fcntl.fcntl(
                self.fd,
                fcntl.F_ADD_SEALS,
                fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL,
            )
        except BaseException:
            os.close(self.fd)
            raise
        self._next = 0

    def reserve(self, inputs: list[list[list]]) -> None:
        """Make room for an exchange's inputs (as write takes them), written call by call after
        this: they then follow one another without wrapping, so that none overwrites another."""
        size = sum(wire.stretch(a.nbytes) for call in inputs for arrays in call for a in arrays)
        if size > wire.INPUTS_BYTES:
            raise ValueError(f"an exchange's inputs ({size} bytes) do not fit the inputs region")
        if self._next + size > wire.INPUTS_BYTES:
            self._next = 0

    def write(self, inputs: list[list[list]]) -> Batch:
        """Write the inputs of every call in order: per call, per input, the arrays it holds (as
        wire.encode_value listed them)."""
        chunks, stretches, at = [], [], 0
        for call in inputs:
            own = []
            for arrays in call:
                begin = at
                for array in arrays:
                    chunks.append(data := wire.array_bytes(array))
                    at += len(data)
                own.append((begin, at))
            stretches.append(own)
        data = b"".join(chunks)
        if len(data) > wire.INPUTS_BYTES:
            raise ValueError(f"a batch's inputs ({len(data)} bytes) do not fit the inputs region")
        start = self._next if self._next + len(data) <= wire.INPUTS_BYTES else 0
        view = memoryview(data)
        while view:
            view = view[os.pwrite(self.fd, view, start + len(data) - len(view)) :]
        self._next = start + len(data)
        return Batch(start, data, stretches)

    def changes(self, batch: Batch, count: int) -> list[list[bool]] | None:
        """For the first `count` calls of `batch`: per input, whether its bytes in the region now
        differ from those written; None when none of the batch's do."""
        now = os.pread(self.fd, len(batch.data), batch.start)
        if now == batch.data:
            return None
        return [
            [now[lo:hi] != batch.data[lo:hi] for lo, hi in stretches]
            for stretches in batch.stretches[:count]
        ]

    def changes_each(self, batches: list[Batch]) -> list[list[bool] | None]:
        """For batches of one call each, written one after another (see reserve): per batch, its
        call's inputs, each whether its bytes in the region now differ from those written; None
        for a batch none of whose bytes do. One read for them all."""
        if not batches:
            return []
        first = batches[0].start
        now = os.pread(self.fd, batches[-1].start + len(batches[-1].data) - first, first)
        out = []
        for batch in batches:
            lo = batch.start - first
            mine = now[lo : lo + len(batch.data)]
            out.append(
                None
                if mine == batch.data
                else [mine[a:b] != batch.data[a:b] for a, b in batch.stretches[0]]
            )
        return out
