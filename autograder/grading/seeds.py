"""Per-student random generators, seeded in the trusted process.

The seed derives from the course seed, the assignment and the student id (and a label naming what
is drawn), so a regrade draws the same cases and two students draw different ones.
"""
from __future__ import annotations

import hashlib

import numpy as np


def seed_for(course_seed: int, assignment: str, student: str, label: str) -> int:
    digest = hashlib.sha256(f"{course_seed}\x1f{assignment}\x1f{student}\x1f{label}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def rng_for(course_seed: int, assignment: str, student: str, label: str) -> np.random.Generator:
    """The generator for one labelled draw of one student (labels keep draws independent)."""
    return np.random.default_rng(seed_for(course_seed, assignment, student, label))
