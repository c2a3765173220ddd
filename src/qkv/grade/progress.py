"""How far a grading run is: a bar on a terminal, and plain lines in a log.

tqdm redraws its bar with carriage returns, which a log file keeps as one line of frames; when
stderr is not a terminal, a line is printed each time another tenth of the class is done.
"""

from __future__ import annotations

import sys


class Lines:
    """tqdm's update/close for a log: "grading: 30 of 120 submissions" every tenth of `total`."""

    def __init__(self, total: int, file=None):
        self.total, self.done, self.file = total, 0, file or sys.stderr
        self._shown = 0  # tenths already printed

    def update(self, n: int) -> None:
        self.done += n
        tenths = self.done * 10 // self.total if self.total else 10
        if tenths > self._shown:
            self._shown = tenths
            print(f"grading: {self.done} of {self.total} submissions", file=self.file, flush=True)

    def close(self) -> None:
        pass


def bar(total: int):
    """A tqdm bar when stderr is a terminal, else Lines."""
    if not sys.stderr.isatty():
        return Lines(total)
    from tqdm import tqdm  # noqa: PLC0415 - only interactive runs draw a bar

    tqdm.monitor_interval = 0  # no monitor thread: grading processes are forked from this one
    return tqdm(total=total, unit="sub", desc="grading", file=sys.stderr, dynamic_ncols=True)
