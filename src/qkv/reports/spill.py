"""Each student's share of a run's outputs (gradebook row and brief, done by the process that graded
them), kept on disk while the run goes on and read back in student order: the process writing the
class-wide files holds a few chunks' shares at a time, not the class's."""

from __future__ import annotations

import heapq

from qkv.results import on_disk


class Spill(on_disk.Batches):
    """Shares added a batch at a time (a chunk's: student -> share), read back once, merged in
    student order. A batch is read from disk only when its first student comes next, so batches of
    consecutive students (chunks of the sorted class) are in memory one or two at a time."""

    def __init__(self, folder):
        super().__init__(folder)
        self._runs: list[tuple[str, tuple[int, int]]] = []  # (first student, where) of each batch

    def add(self, shares: dict) -> None:
        if shares:
            items = sorted(shares.items())
            self._runs.append((items[0][0], self.put(items)))

    def _batch(self, where: tuple[int, int]):
        return iter(self.get(where))

    def in_order(self):
        """(student, share) of every student added, sorted by student."""
        runs, heap, i = sorted(self._runs), [], 0
        while True:
            while i < len(runs) and (not heap or runs[i][0] <= heap[0][0]):
                batch = self._batch(runs[i][1])
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
