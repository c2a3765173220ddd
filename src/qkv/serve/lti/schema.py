"""Creating or migrating the LTI tables, beside the service's own, on every start."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine

from qkv.serve import db

MIGRATIONS = Path(__file__).parent / "alembic"


def migrate(engine: Engine) -> None:
    """Bring the LTI tables to their newest revision."""
    db.migrate(engine, MIGRATIONS)
