"""Shared fixtures: the repository's course, its attention assignment's content, and a place to write."""

import pytest

from course_content import ASSIGNMENT, CONTENT, COURSE, ROOT  # noqa: F401 - ROOT for tests that import it


@pytest.fixture(scope="session")
def course():
    return COURSE


@pytest.fixture(scope="session")
def assignment():
    return ASSIGNMENT


@pytest.fixture(scope="session")
def content():
    return CONTENT


@pytest.fixture(scope="session")
def ref():
    return CONTENT.reference


@pytest.fixture(scope="session")
def example():
    return CONTENT.example


@pytest.fixture(scope="session")
def reference_source():
    return CONTENT.reference_source
