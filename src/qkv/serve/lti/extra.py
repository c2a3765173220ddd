"""Whether the optional extra `lti` is installed: one line saying how to get it when it is not."""

from __future__ import annotations

import importlib.util

from qkv.errors import QkvError

PACKAGES = ("jwt", "cryptography")
INSTALL = "pip install 'qkv-kit[lti]'"


def available() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in PACKAGES)


def require() -> None:
    """Raise a one-line QkvError naming the install command when a package of the extra is missing."""
    if not available():
        raise QkvError(f"LTI needs the optional extra 'lti' (PyJWT and cryptography): {INSTALL}")
