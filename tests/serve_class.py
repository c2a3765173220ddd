"""A course for the service's tests: the week's class (a roster, a late policy) and a service on it."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy

import week_class
from qkv.course import roster as roster_mod
from qkv.serve import people
from qkv.serve.service import Service
from qkv.serve.settings import Settings

POSTGRES = os.environ.get("QKV_TEST_POSTGRES_URL")  # .ci/run starts one and sets this
DATABASES = ("sqlite", "postgresql")
TODAY = datetime(2026, 12, 10, 12, 0, tzinfo=UTC)  # before the week's deadline


class Clock:
    """The service's clock, moved by the test."""

    def __init__(self, when: datetime = TODAY):
        self.when = when

    def __call__(self) -> datetime:
        return self.when


@contextlib.contextmanager
def database(kind: str):
    """None for SQLite in the data folder, or the URL of a fresh PostgreSQL database, dropped after.

    Without QKV_TEST_POSTGRES_URL a PostgreSQL test skips, or fails when QKV_REQUIRE_POSTGRES is set."""
    if kind == "sqlite":
        yield None
        return
    if not POSTGRES:
        if os.environ.get("QKV_REQUIRE_POSTGRES"):
            pytest.fail("QKV_REQUIRE_POSTGRES is set but QKV_TEST_POSTGRES_URL is not")
        pytest.skip("no PostgreSQL: set QKV_TEST_POSTGRES_URL (.ci/postgres starts one)")
    name = f"qkv_test_{secrets.token_hex(6)}"
    admin = sqlalchemy.create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    try:
        yield sqlalchemy.engine.make_url(POSTGRES).set(database=name).render_as_string(False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.dispose()


def settings(root: Path, db: str | None = None, **changes) -> Settings:
    course = week_class.write_course(root / "course", **changes)
    return Settings(course=course, data=root / "data", db=db, clock=Clock())


def tokens(service: Service) -> dict[str, str]:
    """A sign-in token for every roster student, and one for the staff member `ta`."""
    with service.sessions.begin() as db:
        rows = people.invite(
            db, roster_mod.load(service.course), base_url="http://testserver", rotate=False
        )
        found = {student: token for student, _, token, _ in rows}
        found["ta"] = people.add_staff(db, "ta")
    return found


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def reference_files() -> list[tuple[str, tuple[str, bytes]]]:
    """The multipart fields of a hand-in of the reference (full marks on the code)."""
    return [("files", ("attention.py", week_class.reference_source().encode()))]


def wait_graded(client, url: str, headers=None, timeout_s: float = 60.0) -> dict:
    """Poll a hand-in's URL until it is graded or failed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        data = client.get(url, headers=headers).json()
        if data["status"] in ("graded", "failed"):
            return data
        time.sleep(0.1)
    raise AssertionError(f"{url} not graded in {timeout_s} s: {data}")
