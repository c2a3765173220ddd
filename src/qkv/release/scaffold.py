"""`qkv new-assignment ID`: a content folder that releases, validates and grades as it is written.

It holds one function to start from (a reference with solution markers, a hidden suite, one
catalogued mistake written as an edit of the reference, a worked example and a quiz question) and
its entry in course.yaml, appended when the file's assignments are its last block, or printed.
"""

from __future__ import annotations

import re
from pathlib import Path

from qkv.course import layout
from qkv.course.config import course_file, load_course
from qkv.errors import QkvError

ID = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")

REFERENCE = '''\
"""{title}: the function students write (this file is the master: release clears the solutions)."""

import numpy as np


def scale(x, factor):
    """Every entry of x times factor.

    Args:
        x: (n,) array of numbers.
        factor: an int.

    Returns:
        (n,) array: x * factor.
    """
    ### BEGIN SOLUTION
    return np.asarray(x) * factor
    ### END SOLUTION
'''

CONTENT = '''\
"""{title} as the engine sees it: its functions, mistakes, worked example and public cases."""

import numpy as np

from qkv.content.mistakes import Mistake

FUNCTIONS = ("scale",)
MISTAKES = (
    Mistake(
        "scale_adds",
        "scale",
        "x + factor adds the factor: scaling multiplies every entry by it.",
        edit=(("np.asarray(x) * factor", "np.asarray(x) + factor"),),
    ),
)


class Example:
    """The worked example: a short vector scaled by 3."""

    def __init__(self, reference):
        self.x = np.array([1.0, -2.0, 0.5])
        self.factor = 3
        self.y = reference.scale(self.x, self.factor)

    def as_json(self):
        return {{"x": self.x.tolist(), "factor": self.factor, "y": self.y.tolist()}}

    def render(self):
        return f"scale({{self.x.tolist()}}, {{self.factor}}) = {{self.y.tolist()}}"

    def matrices(self):
        return {{"y": (self.y[None, :], ("y",), tuple("abc"))}}


def example(reference):
    return Example(reference)


def public_cases(reference, worked):
    return {{"scale": [("the worked example", (worked.x, worked.factor))]}}
'''

SUITE = '''\
"""Hidden checks for scale(x, factor)."""

import pytest

pytestmark = pytest.mark.part("scale")


def test_the_worked_example(expect, fx):
    expect.same("scale", fx.x, fx.factor, hidden=False)


def test_random_vectors_and_factors(expect, rng, n_cases):
    for _ in range(n_cases):
        x = rng.normal(size=int(rng.integers(2, 9)))
        expect.same("scale", x, int(rng.integers(2, 7)))


def test_the_input_is_left_unchanged(expect, rng):
    expect.unchanged("scale", rng.normal(size=5), 4)
'''

QUIZ = """\
# Quiz master for `{id}`: it holds the answers, never give it to students.
title: "{title}"
questions:
  - id: scale-meaning
    kind: single
    text: What does scale(x, 3) return?
    choices:
      - text: Every entry of x times 3.
        correct: true
      - text: Every entry of x plus 3.
        feedback: That adds the factor; scaling multiplies by it.
      - text: The sum of x, times 3.
        feedback: scale works entry by entry and returns an array of x's shape.
    hint: Scaling changes every entry by the same factor, and keeps the shape.
"""

README = """\
# {{title}}

Write `scale(x, factor)` in `{id}.py`, check it with `qkv check {id}.py` (or `pytest`), and hand
it in by {{deadline}}.
"""

ENTRY = """\
  - id: {id}
    title: "{title}"
    source: solutions/{id}/{id}.py
    quiz: solutions/{id}/quiz.yaml
    quiz_points: 10
    parts:
      - {{id: scale, function: scale, points: 10}}
"""


def files(assignment_id: str, title: str) -> dict[str, str]:
    """The new folder's files, by path relative to it."""
    fill = {"id": assignment_id, "title": title}
    return {
        f"{assignment_id}.py": REFERENCE.format(**fill),
        layout.CONTENT_MODULE + ".py": CONTENT.format(**fill),
        f"{layout.SUITES_DIR}/test_scale.py": SUITE,
        "quiz.yaml": QUIZ.format(**fill),
        layout.STUDENT_README: README.format(**fill),
    }


def create(course_path, assignment_id: str, title: str | None = None) -> tuple[Path, str | None]:
    """Write solutions/<id>/ beside course.yaml and add the assignment to course.yaml.

    Args:
        course_path: course.yaml or its folder (None: ./course.yaml).
        assignment_id: the new assignment's id.
        title: its title (default: made from the id).

    Returns:
        (the folder, None) when course.yaml was extended, or (the folder, the lines to add to its
        `assignments:`) when the file's layout does not allow appending them safely.
    Raises:
        QkvError: a bad id, an id the course has, or a folder that exists.
    """
    if not ID.match(assignment_id):
        raise QkvError(
            f"{assignment_id!r}: an assignment id is lower-case letters, digits and _, "
            "starting with a letter"
        )
    path = course_file(course_path)
    course = load_course(path)
    if any(a.id == assignment_id for a in course.assignments):
        raise QkvError(f"{path}: already has an assignment '{assignment_id}'")
    folder = path.resolve().parent / "solutions" / assignment_id
    if folder.exists():
        raise QkvError(f"{folder}: exists already; choose another id or remove it")
    title = title or assignment_id.replace("_", " ").capitalize()
    for name, text in files(assignment_id, title.replace('"', "'")).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    entry = ENTRY.format(id=assignment_id, title=title.replace('"', "'"))
    text = path.read_text(encoding="utf-8")
    keys = [m.group(1) for line in text.splitlines() if (m := TOP_KEY.match(line))]
    if keys[-1:] != ["assignments"]:
        return folder, entry
    path.write_text(text.rstrip("\n") + "\n\n" + entry, encoding="utf-8")
    load_course(path)  # what was appended reads as the course's
    return folder, None
