"""A student's .py as Python reads it: its encoding, as a coding line names it or as an editor left it."""

from __future__ import annotations

import io
import re
import tokenize

_CODING_LINE = re.compile(rb"(?m)^[ \t\f]*#.*?coding[:=]")  # PEP 263's coding line


def as_python_reads(data: bytes) -> bytes:
    """The code in an encoding Python reads: UTF-8, or what a coding line (PEP 263:
    `# -*- coding: latin-1 -*-`) says; a file with neither is read as Windows' own code page (an
    accent in a comment, saved by an old editor) and given as UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        data.decode(encoding)
        return data
    except (SyntaxError, UnicodeDecodeError):
        if _CODING_LINE.search(
            b"\n".join(data.splitlines()[:2])
        ):  # it names its encoding: that is wrong
            raise
        return data.decode("cp1252").encode("utf-8")
