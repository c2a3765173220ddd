"""What the student's code raised, told in the student's terms (their file, cell and line)."""

from __future__ import annotations

import traceback

from qkv.sandbox import imports, wire


def where(line: int, cells) -> str:
    """'line 12', or for a notebook 'cell 7 (score), line 3' (cells: [[first line, label], ...])."""
    for first, label, *_ in reversed(cells or ()):
        if isinstance(first, int) and line >= first:
            return f"{label}, line {line - first + 1}"
    return f"line {line}"


def student_trace(exc: BaseException, filename: str, cells=None) -> str:
    """The traceback trimmed to the student's own frames: 'line 12 in score: return Q @ K'.

    Frames are picked before their lines are looked up: the lines of numpy's own frames (a wrong
    axis raises inside numpy's Python code) would have linecache read whole numpy modules for nothing.

    Args:
        exc: what the student's code raised.
        filename: the student's file, as its frames name it.
        cells: a notebook's map from lines to cells ([[first line, label], ...]), or None for a file.

    Returns:
        The last three of the student's frames, "; "-joined.
    """
    own = [
        (frame, line)
        for frame, line in traceback.walk_tb(exc.__traceback__)
        if frame.f_code.co_filename == filename
    ]
    frames = traceback.StackSummary.extract(own[-3:])
    return "; ".join(
        f"{where(f.lineno or 0, cells)} in {f.name}: {(f.line or '').strip()}"[:160]
        for f in frames[-3:]
    )


def describe(exc: BaseException, filename: str, cells=None) -> dict:
    """The exception's type, message and where in the student's code, each as plain text.

    Plain text even when the exception's own methods (__str__, say) raise in turn.

    Args:
        exc: what the student's code raised.
        filename: the student's file, as its frames name it.
        cells: a notebook's map from lines to cells ([[first line, label], ...]), or None for a file.

    Returns:
        {"type", "message", "where"}.
    """
    try:
        message = str(exc)[:300]
    except BaseException:
        message = "(its message could not be shown: turning it into text raised an exception too)"
    try:
        where = student_trace(exc, filename, cells)
    except BaseException:
        where = ""
    return {"type": type(exc).__name__[:80], "message": message, "where": where}


def raised(exc: BaseException, filename: str, cells=None) -> list:
    """The RAISED reply of a call whose student code raised `exc`.

    Args:
        exc: what the student's code raised.
        filename: the student's file, as its frames name it.
        cells: a notebook's map from lines to cells ([[first line, label], ...]), or None for a file.

    Returns:
        [Op.RAISED, type, message, where].
    """
    info = describe(exc, filename, cells)
    return [wire.Op.RAISED, info["type"], info["message"], info["where"]]


def load_failure(e: BaseException, filename: str, cells) -> tuple[str, str, str]:
    """(reason, message, where) of what a file's top lines raised.

    Args:
        e: what the file's top lines raised.
        filename: the student's file, as its frames name it.
        cells: a notebook's map from lines to cells ([[first line, label], ...]), or None for a file.

    Returns:
        The reason ("import"), the message and where it was raised.
    """
    if isinstance(e, imports.NotAllowed):
        return "import", str(e)[:300], student_trace(e, filename, cells)
    info = describe(e, filename, cells)
    return "import", f"loading raised {info['type']}: {info['message']}", info["where"]
