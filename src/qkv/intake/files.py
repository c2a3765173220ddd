"""Reading a student's files: never past a size limit, never through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from qkv.errors import QkvError


def not_regular(path: Path) -> str:
    """'' for a regular file; else why it is refused ('a symbolic link', 'a FIFO', ...), without following links."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "not found"
    except OSError as e:
        return f"cannot be examined ({e.strerror})"
    if stat.S_ISREG(mode):
        return ""
    kinds = (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((text for test, text in kinds if test(mode)), "not a regular file")


def read_bytes(path: Path, limit: int) -> bytes:
    """A regular file's bytes, read without following a link and never more than `limit`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise QkvError(f"{path}: not found") from None
    except OSError as e:
        kind = not_regular(path)
        raise QkvError(
            f"{path}: {kind or f'cannot read ({e.strerror})'}; only regular files are read"
        ) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise QkvError(f"{path}: is a folder; give the file inside it")
        if not stat.S_ISREG(info.st_mode):
            raise QkvError(
                f"{path}: {not_regular(path)}, not a regular file; only regular files are read"
            )
        if info.st_size > limit:
            raise QkvError(f"{path}: {info.st_size} bytes, larger than the {limit}-byte limit")
        try:
            data = _read_at_most(
                fd, limit + 1, info.st_size
            )  # never more, even if the file grew since fstat()
        except OSError as e:
            raise QkvError(f"{path}: cannot read ({e.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise QkvError(f"{path}: larger than the {limit}-byte limit")
    return data


def _read_at_most(fd: int, most: int, size: int) -> bytes:
    """Up to `most` bytes from fd, in reads the size of the file (a buffered read of `most` would first
    make room for all of it: megabytes, for a file of a few kilobytes)."""
    chunks = []
    while most > 0:
        chunk = os.read(fd, min(most, max(size + 1, 64 * 1024)))
        if not chunk:
            break
        chunks.append(chunk)
        most -= len(chunk)
    return b"".join(chunks)


def read_limited(path: Path, limit: int) -> bytes:
    """A regular file's bytes (no link followed, at most `limit`), or a QkvError naming the file."""
    return read_bytes(path, limit)


def is_notebook(path: Path | None) -> bool:
    return path is not None and Path(path).suffix == ".ipynb"
