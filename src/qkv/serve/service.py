"""The running service's one context object: settings, course, database and the grading wake-up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine
from sqlalchemy.orm import sessionmaker

from qkv.course.config import Course, load_course
from qkv.serve import db as db_mod
from qkv.serve.auth import SessionSigner
from qkv.serve.settings import Settings


@dataclass
class Service:
    settings: Settings
    course: Course
    engine: Engine
    sessions: sessionmaker
    signer: SessionSigner
    wake: Callable[[], None] = field(default=lambda: None)  # tells idle grading processes: a job

    @classmethod
    def open(cls, settings: Settings) -> Service:
        """Load the course and open (and migrate) the database the settings name."""
        course = load_course(settings.course)
        engine, sessions = db_mod.open_database(settings.database_url)
        return cls(settings, course, engine, sessions, SessionSigner(settings.secret()))

    def now(self):
        return self.settings.clock()
