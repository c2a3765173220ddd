"""The database: an engine for the service's URL (SQLite in WAL mode by default) and its migration.

The schema is Alembic's: `migrate` brings any database to the newest revision, on every start.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import sessionmaker

from qkv.errors import QkvError

MIGRATIONS = Path(__file__).parent / "alembic"
BUSY_MS = 30_000  # a writer waits this long for another's commit before giving up


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def engine_for(url: str) -> Engine:
    """An engine for `url`; a SQLite file's folder is made, and the file is put in WAL mode."""
    if url.startswith("postgresql") and not url.startswith("postgresql+psycopg"):
        raise QkvError(f"--db {url}: write PostgreSQL URLs as postgresql+psycopg://...")
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": BUSY_MS / 1000})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    try:
        return create_engine(url, pool_pre_ping=True)
    except Exception as e:  # a malformed URL or a driver that is not installed
        raise QkvError(f"--db {url}: {type(e).__name__}: {e}") from None


def migrate(engine: Engine, migrations: Path = MIGRATIONS) -> None:
    """Create the schema, or bring it to the newest revision of the Alembic scripts in
    `migrations` (the service's own by default; the LTI tables have theirs)."""
    from alembic import command  # noqa: PLC0415 - the migration tool only at start
    from alembic.config import Config  # noqa: PLC0415

    config = Config()
    config.set_main_option("script_location", str(migrations))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    except Exception as e:
        if isinstance(e, QkvError):
            raise
        raise QkvError(
            f"database {engine.url!r}: {type(e).__name__}: {e}".splitlines()[0]
        ) from None


def sessions(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)


def open_database(url: str) -> tuple[Engine, sessionmaker]:
    """The engine and session maker of a migrated database."""
    engine = engine_for(url)
    migrate(engine)
    return engine, sessions(engine)
