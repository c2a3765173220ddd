"""Per-student random generators, seeded in the trusted process.

Every draw derives from the course seed, the assignment and the student id (and a label naming what
is drawn), so a regrade draws the same cases and two students draw different ones. Two derivations:

- `rng_for`, numpy's seeding of the hash's first 8 bytes: what the quiz's variants are drawn from
  (a student's released quiz notebook holds them, so it never changes);
- `suite_state`, the whole hash as a PCG64 state and stream: what the hidden suites' cases are drawn
  from. A grading process asks for one per random test per student, and numpy's seeding (a
  SeedSequence and a new bit generator each time) cost it 36 us a time, cold; a generator kept per
  test and given this state costs a few.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _digest(course_seed: int, assignment: str, student: str, label: str) -> bytes:
    return hashlib.sha256(
        f"{course_seed}\x1f{assignment}\x1f{student}\x1f{label}".encode()
    ).digest()


def seed_for(course_seed: int, assignment: str, student: str, label: str) -> int:
    return int.from_bytes(_digest(course_seed, assignment, student, label)[:8], "big")


def rng_for(course_seed: int, assignment: str, student: str, label: str) -> np.random.Generator:
    """The generator for one labelled draw of one student (labels keep draws independent)."""
    return np.random.default_rng(seed_for(course_seed, assignment, student, label))


def suite_state(course_seed: int, assignment: str, student: str, label: str) -> dict:
    """The PCG64 state a suite test's cases for one student are drawn from: the hash's first 16 bytes
    as the generator's state, the last 16 as its stream (any odd increment is a stream of its own)."""
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


def suite_rng(state: dict, rng: np.random.Generator | None = None) -> np.random.Generator:
    """A PCG64 generator put in `state` (suite_state): `rng` when given (one kept to be reused), else a new one."""
    rng = rng if rng is not None else np.random.Generator(np.random.PCG64(0))
    rng.bit_generator.state = state
    return rng
