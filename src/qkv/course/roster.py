"""The class list: `roster:` in course.yaml names a CSV with one row per student.

Header `id,name,email,section`, optionally `sis_id`, `sis_login_id` and `canvas_id` (the ids an LMS
import matches on). Every roster student gets a gradebook row; ids are plain one-line names, unique.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qkv.course import layout
from qkv.course.files import read_text
from qkv.errors import QkvError, did_you_mean

if TYPE_CHECKING:
    from qkv.course.config import Course

REQUIRED = ("id", "name", "email", "section")
OPTIONAL = ("sis_id", "sis_login_id", "canvas_id")
MAX_ROSTER_BYTES = 20_000_000


@dataclass(frozen=True)
class Student:
    """One row of the roster."""

    id: str
    name: str = ""
    email: str = ""
    section: str = ""
    sis_id: str = ""
    sis_login_id: str = ""
    canvas_id: str = ""


@dataclass(frozen=True)
class Roster:
    students: tuple[Student, ...]

    @property
    def ids(self) -> list[str]:
        return [s.id for s in self.students]

    def get(self, student: str) -> Student | None:
        return next((s for s in self.students if s.id == student), None)


def parse(text: str, *, name: str) -> Roster:
    """The roster in `text` (a CSV); errors are one line naming `name` and the row."""
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    for column in header:
        if column not in REQUIRED + OPTIONAL:
            raise QkvError(
                f"{name}: unknown column '{column}'"
                + did_you_mean(column, REQUIRED + OPTIONAL)
                + f" (columns: {', '.join(REQUIRED)}, optionally {', '.join(OPTIONAL)})"
            )
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise QkvError(
            f"{name}: no '{missing[0]}' column (the header is {','.join(REQUIRED)}, optionally "
            f"{', '.join(OPTIONAL)})"
        )
    students, seen = [], set()
    for row in reader:
        line = reader.line_num
        if None in row or any(v is None for v in row.values()):
            raise QkvError(f"{name}: line {line}: expected {len(header)} fields")
        sid = row["id"].strip()
        if not layout.is_valid_id(sid):
            raise QkvError(
                f"{name}: line {line}: {sid!r} is not a usable student id ({layout.ID_RULE})"
            )
        if sid in seen:
            raise QkvError(f"{name}: line {line}: student '{sid}' is on the roster twice")
        seen.add(sid)
        students.append(Student(**{k: v.strip() for k, v in row.items()}))
    return Roster(tuple(sorted(students, key=lambda s: s.id)))


def load(course: Course) -> Roster | None:
    """The course's roster, or None when course.yaml names none."""
    if not course.roster:
        return None
    path = course.path(course.roster)
    text = read_text(
        path,
        name=str(path),
        limit=MAX_ROSTER_BYTES,
        missing="roster not found (course.yaml: roster)",
        what="the roster",
        encoding="utf-8-sig",
    )
    return parse(text, name=str(path))
