"""Lists a run keeps on disk rather than in memory, pickled a batch at a time onto a file no other
process can open, which vanishes once closed or once the process ends, however it ends. Nothing
touches the disk until a first batch is written."""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Self

BATCH = 256  # items pickled together by a Spool


class Batches:
    """Batches written (`put`) and read back (`get`) where `put` said they are."""

    def __init__(self, folder: Path | str) -> None:
        self._folder = Path(folder)  # where the file goes, made with the first batch
        self._file: IO[bytes] | None = None

    def put(self, items: list[Any]) -> tuple[int, int]:
        if self._file is None:
            self._folder.mkdir(parents=True, exist_ok=True)
            # Unlinked from the start, and kept open for the run: close() closes it.
            self._file = tempfile.TemporaryFile(dir=self._folder)  # noqa: SIM115 - see above
        blob = pickle.dumps(items, pickle.HIGHEST_PROTOCOL)
        where = (self._file.seek(0, 2), len(blob))
        self._file.write(blob)
        return where

    def get(self, where: tuple[int, int]) -> list[Any]:
        offset, length = where
        assert self._file is not None, "nothing was put"
        self._file.seek(offset)
        items: list[Any] = pickle.loads(self._file.read(length))
        return items

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Spool(Batches):
    """Items appended one at a time, read back in order (as often as wanted), a batch at a time."""

    def __init__(self, folder: Path | str, batch: int | None = None) -> None:
        super().__init__(folder)
        self._batch = batch or BATCH
        self._written: list[tuple[int, int]] = []  # where each full batch is
        self._pending: list[Any] = []

    def append(self, item: Any) -> None:
        self._pending.append(item)
        if len(self._pending) >= self._batch:
            self._written.append(self.put(self._pending))
            self._pending = []

    def __iter__(self) -> Iterator[Any]:
        for where in self._written:
            yield from self.get(where)
        yield from self._pending
