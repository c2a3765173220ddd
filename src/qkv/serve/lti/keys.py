"""The tool's own RSA key pairs in the data folder: made once, published as a JWKS, rotated.

A rotated key stops signing at once but stays in the JWKS for a day, so a platform that cached the
old set still verifies what the tool signed just before.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

ALGORITHM = "RS256"
KEY_BITS = 2048
STILL_PUBLISHED = timedelta(days=1)
_INDEX = "keyring.json"


@dataclass(frozen=True)
class ToolKey:
    kid: str
    private: rsa.RSAPrivateKey
    created: datetime
    retired: datetime | None = None

    def public_jwk(self) -> dict[str, Any]:
        jwk: dict[str, Any] = RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "alg": ALGORITHM, "use": "sig"}

    def sign(self, claims: dict[str, Any]) -> str:
        return jwt.encode(claims, self.private, algorithm=ALGORITHM, headers={"kid": self.kid})


def _folder(data: Path) -> Path:
    return data / "lti" / "keys"


def _thumbprint(key: rsa.RSAPrivateKey) -> str:
    """RFC 7638: the SHA-256 of the public key's required members, as the key's id."""
    jwk = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    members = json.dumps({k: jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"))
    digest = hashlib.sha256(members.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One process at a time makes or rotates keys, so two servers starting at once agree."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(folder / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _write_private(path: Path, key: rsa.RSAPrivateKey) -> None:
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    os.replace(tmp, path)


def _read_index(folder: Path) -> list[dict[str, Any]]:
    path = folder / _INDEX
    if not path.exists():
        return []
    entries: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return entries


def _write_index(folder: Path, entries: list[dict[str, Any]]) -> None:
    tmp = folder / (_INDEX + ".tmp")
    tmp.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, folder / _INDEX)


def _new_entry(folder: Path, now: datetime) -> dict[str, Any]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    kid = _thumbprint(key)
    _write_private(folder / f"{kid}.pem", key)
    return {"kid": kid, "created": now.isoformat(), "retired": None}


def _load(folder: Path, entry: dict[str, Any]) -> ToolKey:
    pem = (folder / f"{entry['kid']}.pem").read_bytes()
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError(f"{entry['kid']}.pem: not an RSA private key")
    retired = entry.get("retired")
    return ToolKey(
        kid=entry["kid"],
        private=key,
        created=datetime.fromisoformat(entry["created"]),
        retired=datetime.fromisoformat(retired) if retired else None,
    )


@dataclass(frozen=True)
class Keyring:
    """The key that signs now, and every key still published."""

    current: ToolKey
    published: tuple[ToolKey, ...]

    def jwks(self) -> dict[str, Any]:
        return {"keys": [key.public_jwk() for key in self.published]}


def _keep(entries: list[dict[str, Any]], folder: Path, now: datetime) -> list[dict[str, Any]]:
    """Drops the keys retired more than a day ago, files and all."""
    kept = []
    for entry in entries:
        retired = entry.get("retired")
        if retired and now - datetime.fromisoformat(retired) > STILL_PUBLISHED:
            (folder / f"{entry['kid']}.pem").unlink(missing_ok=True)
        else:
            kept.append(entry)
    return kept


def keyring(data: Path, *, now: datetime | None = None) -> Keyring:
    """The tool's keys under `data`, making the first pair if there is none yet."""
    now = now or datetime.now(UTC)
    folder = _folder(data)
    with _locked(folder):
        entries = _read_index(folder)
        kept = _keep(entries, folder, now)
        if not any(e["retired"] is None for e in kept):
            kept.append(_new_entry(folder, now))
        if kept != entries:
            _write_index(folder, kept)
    keys = tuple(_load(folder, e) for e in kept)
    current = next(k for k in reversed(keys) if k.retired is None)
    return Keyring(current=current, published=keys)


def rotate(data: Path, *, now: datetime | None = None) -> Keyring:
    """A new key signs from now on; the one it replaces stays published for a day."""
    now = now or datetime.now(UTC)
    folder = _folder(data)
    keyring(data, now=now)
    with _locked(folder):
        entries = [{**e, "retired": e["retired"] or now.isoformat()} for e in _read_index(folder)]
        entries.append(_new_entry(folder, now))
        _write_index(folder, entries)
    return keyring(data, now=now)
