"""What one service runs with: where its course, data and database are, and how it grades."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_DATA = "qkv-data"
DATABASE_FILE = "qkv.sqlite3"
UPLOADS_DIR = "uploads"
SECRET_FILE = "secret.key"  # signs the session cookies; made once per data folder


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class Settings:
    """The service's settings (`qkv serve` options), shared by the app and the grading processes."""

    course: Path | None = None  # course.yaml or its folder (default: ./course.yaml)
    data: Path = Path(DEFAULT_DATA)
    db: str | None = None  # a SQLAlchemy URL; default: SQLite in `data`
    host: str = "127.0.0.1"
    port: int = 8000
    jobs: int = 1
    executor: str = "local"
    scheduler: str | None = None
    forwarded_allow_ips: str = "127.0.0.1"  # proxies whose X-Forwarded-* headers are believed
    clock: Callable[[], datetime] = field(default=utcnow, repr=False)  # tests move time

    @property
    def database_url(self) -> str:
        return self.db or f"sqlite:///{(Path(self.data) / DATABASE_FILE).resolve()}"

    @property
    def uploads(self) -> Path:
        return Path(self.data) / UPLOADS_DIR

    def secret(self) -> bytes:
        """The key that signs session cookies, kept in the data folder (made on first use)."""
        path = Path(self.data) / SECRET_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return path.read_bytes().strip()
        with os.fdopen(fd, "wb") as f:
            key = secrets.token_hex(32).encode()
            f.write(key)
        return key
