"""Shared fixtures: the repository's course, its reference, and a place to write."""
from pathlib import Path

import pytest

from autograder.grading import reference
from autograder.course.config import load_course

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def course():
    return load_course(ROOT / "course.yaml")


@pytest.fixture(scope="session")
def assignment(course):
    return course.assignment("attention")


@pytest.fixture(scope="session")
def ref(course, assignment):
    return reference.load(course.path(assignment.source))


@pytest.fixture(scope="session")
def reference_source(course, assignment):
    return course.path(assignment.source).read_text()
