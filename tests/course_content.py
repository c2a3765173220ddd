"""The repository's course and its attention assignment's content, for tests that need them at import."""

import importlib
from pathlib import Path

from qkv.content import loader
from qkv.course.config import load_course

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course(ROOT / "course.yaml")
ASSIGNMENT = COURSE.assignment("attention")
CONTENT = loader.load(COURSE, ASSIGNMENT)
CATALOGUE = CONTENT.catalogue

# The assignment's own modules (solutions/attention/), as the content package imported them.
fixture = importlib.import_module(CONTENT.module.__package__ + ".example")
cases = CONTENT.cases
