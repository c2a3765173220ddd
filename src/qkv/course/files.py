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
    """An instructor's text file (course.yaml, a quiz master, a roster), capped at `limit` bytes and
    decoded; every problem is one line naming `name` (`what` the file is, in "cannot read ...")."""
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
    """An instructor's YAML file (course.yaml, quiz.yaml), safely parsed; errors are one line naming `name`."""
    text = read_text(path, name=name, limit=limit, missing=missing)
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark else ""
        raise QkvError(f"{name}: invalid YAML{at}: {getattr(e, 'problem', None) or e}") from None
