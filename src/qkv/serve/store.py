"""Uploaded files, stored once each by the SHA-256 of their bytes: `uploads/ab/abcdef...`.

A file's name is data kept in the database; on disk only its hash names it. A grading folder is
made of a hand-in's files under names that are plain file names (no folders, no leading dot), so an
upload named `../../x.py` is kept, shown and never written anywhere by that name.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from qkv.course import layout
from qkv.results.records import atomic_write

NAME_CHARS = 255


def put(uploads: Path, data: bytes) -> str:
    """Store `data` (once) and return its hash."""
    digest = hashlib.sha256(data).hexdigest()
    path = path_of(uploads, digest)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    return digest


def path_of(uploads: Path, digest: str) -> Path:
    if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        raise ValueError(f"not a stored file's hash: {digest!r}")
    return Path(uploads) / digest[:2] / digest


def get(uploads: Path, digest: str) -> bytes:
    return path_of(uploads, digest).read_bytes()


def plain_name(name: str) -> bool:
    """Whether a name a browser sent can be a file's name in a grading folder as it is."""
    return (
        0 < len(name) <= NAME_CHARS
        and "/" not in name
        and "\\" not in name
        and "\0" not in name
        and not name.startswith(".")
        and name.isprintable()
        and name.lower() != layout.TIMESTAMP_FILE  # the server's clock is the hand-in time
    )


def lay_out(uploads: Path, files, folder: Path) -> None:
    """Write (name, digest) pairs with plain names into `folder` (made here).

    Args:
        uploads: the folder of stored uploads.
        files: (name, digest) pairs.
        folder: the grading folder to make.
    """
    folder.mkdir(parents=True)
    for name, digest in files:
        if plain_name(name):
            fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as f:
                f.write(get(uploads, digest))
