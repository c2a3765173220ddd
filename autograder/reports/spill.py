"""Each student's share of a run's outputs (gradebook row and brief, done by the process that graded
them), kept on disk while the run goes on and read back in student order: the process writing the
class-wide files holds a few chunks' shares at a time, not the class's."""
from __future__ import annotations

import heapq
import pickle
import tempfile


class Spill:
    """Shares added a batch at a time (a chunk's: student -> share), read back once, merged in
    student order. A batch is read from disk only when its first student comes next, so batches of
    consecutive students (chunks of the sorted class) are in memory one or two at a time."""

    def __init__(self, folder=None):
        self._file = tempfile.TemporaryFile(dir=folder)  # unlinked: gone however the run ends
        self._runs: list[tuple[str, int, int]] = []  # (first student, offset, length) of each batch

    def add(self, shares: dict) -> None:
        if not shares:
            return
        items = sorted(shares.items())
        blob = pickle.dumps(items, pickle.HIGHEST_PROTOCOL)
        offset = self._file.seek(0, 2)
        self._file.write(blob)
        self._runs.append((items[0][0], offset, len(blob)))

    def _batch(self, offset: int, length: int):
        self._file.seek(offset)
        return iter(pickle.loads(self._file.read(length)))

    def in_order(self):
        """(student, share) of every student added, sorted by student."""
        runs, heap, i = sorted(self._runs), [], 0
        while True:
            while i < len(runs) and (not heap or runs[i][0] <= heap[0][0]):
                batch = self._batch(*runs[i][1:])
                student, share = next(batch)
                heapq.heappush(heap, (student, i, share, batch))
                i += 1
            if not heap:
                return
            student, n, share, batch = heapq.heappop(heap)
            yield student, share
            following = next(batch, None)
            if following is not None:
                heapq.heappush(heap, (following[0], n, following[1], batch))

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "Spill":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
