"""Sandbox slots: a number per grading process, unique on its machine while the process lives.

A slot gives a sandbox its uid (61000 + slot) and, without cgroups, the processes it may kill, so
two sandboxes on one machine must never share one, whoever started them: the processes of a local
`qkv grade`, a second run beside it, or Dask workers. A slot is claimed by taking an exclusive
`flock` on its lock file in a folder every process of the machine sees; the kernel drops the lock
when the process ends, however it ends, so a killed grader frees its slot without any cleanup.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

from qkv.errors import QkvError

MAX_SLOTS = 1024  # uids 61000..62023, well below nobody (65534)


def slot_dir() -> Path:
    """Where the lock files live: /run/qkv-slots for root (only root can write /run), else per user."""
    if os.geteuid() == 0 and os.access("/run", os.W_OK):
        return Path("/run/qkv-slots")
    return Path(tempfile.gettempdir()) / f"qkv-slots-{os.geteuid()}"


class Slot:
    """A claimed slot; it stays claimed until release() or the end of this process."""

    def __init__(self, number: int, fd: int):
        self.number = number
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def __enter__(self) -> Slot:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def claim(*, folder: Path | None = None) -> Slot:
    """Claim the lowest slot no living process on this machine holds."""
    folder = Path(folder) if folder else slot_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as e:
        raise QkvError(f"{folder}: cannot create the sandbox slot folder ({e.strerror})") from None
    for number in range(MAX_SLOTS):
        path = folder / f"slot-{number}.lock"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as e:
            raise QkvError(f"{path}: cannot open a sandbox slot lock ({e.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return Slot(number, fd)
    raise QkvError(
        f"all {MAX_SLOTS} sandbox slots of this machine are taken (lock files in {folder})"
    )
