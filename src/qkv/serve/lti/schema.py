"""Creating or migrating the LTI tables, beside the service's own, on every start."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine

from qkv.errors import QkvError

MIGRATIONS = Path(__file__).parent / "alembic"


def migrate(engine: Engine) -> None:
    """Bring the LTI tables to their newest revision."""
    from alembic import command  # noqa: PLC0415 - the migration tool only at start
    from alembic.config import Config  # noqa: PLC0415 - the migration tool only at start

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    except Exception as e:
        raise QkvError(
            f"database {engine.url!r}: {type(e).__name__}: {e}".splitlines()[0]
        ) from None
