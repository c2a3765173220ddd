"""An instructor's files (course.yaml, a quiz master, a roster), read with one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from qkv.errors import QkvError

# libyaml's parser when PyYAML was built with it (a tenth of the time on a quiz master), else PyYAML's own.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text(
    path: Path,
    *,
    name: str,
    limit: int,
    missing: str = "not found",
    what: str = "",
    encoding: str = "utf-8",
) -> str:
    """An instructor's text file (course.yaml, a quiz master, a roster), read and decoded.

    Args:
        path: the file.
        name: how errors name it (usually the path as given).
        limit: the most bytes it may hold.
        missing: what an error says when it is not there.
        what: what the file is, for "cannot read ..." errors.
        encoding: its encoding.

    Returns:
        The file's text.

    Raises:
        QkvError: one line naming `name` when the file is missing, unreadable, too large or not
            in `encoding`.
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise QkvError(f"{name}: {missing}") from None
    except OSError as e:
        raise QkvError(f"{name}: cannot read{' ' + what if what else ''} ({e.strerror})") from None
    if len(raw) > limit:
        raise QkvError(f"{name}: larger than {limit} bytes")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as e:
        raise QkvError(f"{name}: not UTF-8 (byte {e.start})") from None


def read_yaml(path: Path, *, name: str, limit: int, missing: str = "not found") -> Any:
    """An instructor's YAML file (course.yaml, quiz.yaml), safely parsed.

    Args:
        path: the file.
        name: how errors name it.
        limit: the most bytes it may hold.
        missing: what an error says when it is not there.

    Returns:
        The parsed document (None for an empty file).

    Raises:
        QkvError: one line naming `name`, for what read_text refuses or invalid YAML.
    """
    text = read_text(path, name=name, limit=limit, missing=missing)
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark else ""
        raise QkvError(f"{name}: invalid YAML{at}: {getattr(e, 'problem', None) or e}") from None
