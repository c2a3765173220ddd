"""The student's own modules: the .py files beside the code that it imports (`from helpers import f`).

A student may keep a helper in a file of its own, as they would run it at home. Such a file goes to
the child with the code, and the child's import gate lets it be imported from there (see
sandbox/imports.py). Only the files the code imports are taken (and those they import in turn), never
a standard-library name (the standard library's module comes first), the release's own files (its
public checks, `test_*.py`) or the code file itself.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from qkv.course import layout

MAX_MODULES = 16
MAX_LOOKS = 256  # of the import statements read, and of the names looked up beside the code
# A statement starts a line, or follows a `\n` escape inside a notebook's JSON string.
_IMPORT = re.compile(
    rb"(?:\\n|\b)(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([A-Za-z_][\w., \t]*))"
)
_NAME = re.compile(rb"[A-Za-z_]\w*")
# Never taken: the release's own modules (its public checks), and the standard library's names.
_NOT_OWN = frozenset(
    Path(name).stem for name in (layout.PUBLIC_CHECKS_FILE, layout.COMPARE_FILE)
) | frozenset(sys.stdlib_module_names)


def imported_names(source: bytes) -> list[str]:
    """The top-level names a file's import statements name, in order, once each: `import a, b as c`
    gives a and b. Read by pattern, not parsed, so a notebook's JSON (`"from helpers import f\\n",`)
    reads too, and words in a comment or string may come along (a name with no file beside is no module)."""
    names: dict[str, None] = {}
    windows: list[bytes] = []
    at = source.find(b"import")
    while (
        at >= 0 and len(windows) < MAX_LOOKS
    ):  # only around the word: matching the whole file costs more
        windows.append(source[max(0, at - 80) : at + 120])  # `from <name> import`, `import <names>`
        at = source.find(b"import", at + 6)
    for single, listed in _IMPORT.findall(b"\0".join(windows)):
        for part in [single] if single else listed.split(b","):
            word = _NAME.match(part.strip())
            if word:
                names[word.group().decode("ascii")] = None
    return list(names)


def own_modules(
    folder: Path | str, code: bytes, *, entry: str, limit: int, read
) -> dict[str, bytes]:
    """{'<name>.py': bytes} of the files in `folder` that `code` imports, and that those import in turn.

    Args:
        entry: the code file's name (never taken again).
        limit: bytes they may hold all together (`read` raises its QkvError line past it).
        read: read(path, limit) -> bytes, the caller's reading of an untrusted file.
    """
    taken: dict[str, bytes] = {}
    stem = os.path.splitext(entry)[0]
    waiting = imported_names(code)
    looked = 0
    while (
        waiting and len(taken) < MAX_MODULES and looked < MAX_LOOKS
    ):  # a file of hostile imports: bounded
        name = waiting.pop(0)
        if name in _NOT_OWN or name == stem or name.startswith("test_") or f"{name}.py" in taken:
            continue
        looked += 1
        path = os.path.join(folder, f"{name}.py")
        if not os.path.isfile(path) or os.path.islink(path):  # most often no such file: one stat
            continue
        data = read(
            path, limit - sum(map(len, taken.values()))
        )  # raises past the limit, as for the code
        taken[f"{name}.py"] = data
        waiting += imported_names(data)
    return taken
