"""Whether the optional extra `serve` is installed: one line saying how to get it when it is not."""

from __future__ import annotations

import importlib.util

from qkv.errors import QkvError

PACKAGES = ("starlette", "uvicorn", "sqlalchemy", "alembic", "multipart", "itsdangerous")
INSTALL = "pip install 'qkv-kit[serve]'"


def require() -> None:
    """Raise a one-line QkvError naming the install command when a package of the extra is missing."""
    missing = [name for name in PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise QkvError(
            f"qkv serve needs the optional extra 'serve' (missing {', '.join(missing)}): {INSTALL}"
        )
