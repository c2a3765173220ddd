"""Per-student random generators, seeded in the trusted process.

Every draw derives from the course seed, the assignment and the student id (and a label naming what
is drawn), so a regrade draws the same cases and two students draw different ones: `rng_for`
for the quiz's variants, `suite_state` (a PCG64 state) for the hidden suites' cases.

More in docs/internals/grading.md.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np


def _digest(course_seed: int, assignment: str, student: str, label: str) -> bytes:
    return hashlib.sha256(
        f"{course_seed}\x1f{assignment}\x1f{student}\x1f{label}".encode()
    ).digest()


def seed_for(course_seed: int, assignment: str, student: str, label: str) -> int:
    """The integer seed of one labelled draw of one student: the hash's first 8 bytes.

    Args:
        course_seed: the course's seed.
        assignment: the assignment's id.
        student: the student's id.
        label: what is drawn (labels keep draws independent).

    Returns:
        A seed for numpy's default_rng.
    """
    return int.from_bytes(_digest(course_seed, assignment, student, label)[:8], "big")


def rng_for(course_seed: int, assignment: str, student: str, label: str) -> np.random.Generator:
    """The generator for one labelled draw of one student (labels keep draws independent).

    Args:
        course_seed: the course's seed.
        assignment: the assignment's id.
        student: the student's id.
        label: what is drawn.

    Returns:
        A new numpy Generator.
    """
    return np.random.default_rng(seed_for(course_seed, assignment, student, label))


def suite_state(course_seed: int, assignment: str, student: str, label: str) -> dict[str, Any]:
    """The PCG64 state a suite test's cases for one student are drawn from.

    The hash's first 16 bytes are the generator's state, the last 16 its stream (any odd increment
    is a stream of its own).

    Args:
        course_seed: the course's seed.
        assignment: the assignment's id.
        student: the student's id.
        label: the suite test.

    Returns:
        A bit generator state for suite_rng.
    """
    digest = _digest(course_seed, assignment, student, label)
    return {
        "bit_generator": "PCG64",
        "has_uint32": 0,
        "uinteger": 0,
        "state": {
            "state": int.from_bytes(digest[:16], "little"),
            "inc": int.from_bytes(digest[16:], "little") | 1,
        },
    }


def suite_rng(state: dict[str, Any], rng: np.random.Generator | None = None) -> np.random.Generator:
    """A PCG64 generator put in `state` (suite_state): `rng` when given (one kept to be reused), else a new one."""
    rng = rng if rng is not None else np.random.Generator(np.random.PCG64(0))
    rng.bit_generator.state = state
    return rng
