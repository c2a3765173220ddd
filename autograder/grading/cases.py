"""Hidden random cases, drawn in the trusted process from a per-student seed.

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


# Shapes stay small (at most 7 per side) so a pure-Python-loop solution passes within the limits,
# and every draw makes the sides that could be confused differ (n_q != n_k, d_k != d_v, ...).

def _distinct(rng: np.random.Generator, k: int, low: int = 2, high: int = 8) -> list[int]:
    return [int(x) for x in rng.choice(np.arange(low, high), size=k, replace=False)]


def projection(rng: np.random.Generator):
    """X (n, d_model), W_q and W_k (d_model, d_k), W_v (d_model, d_v), with n, d_model, d_k, d_v all different."""
    n, d_model, d_k, d_v = _distinct(rng, 4)
    return (rng.normal(size=(n, d_model)), rng.normal(size=(d_model, d_k)),
            rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v)))


def queries_keys(rng: np.random.Generator):
    """Q (n_q, d_k) and K (n_k, d_k) with n_q != n_k."""
    n_q, n_k, d_k = _distinct(rng, 3)
    return rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k))


def scores(rng: np.random.Generator, *, scale: float = 2.0, offset: float = 0.0):
    """S (n_q, n_k), n_q != n_k."""
    n_q, n_k = _distinct(rng, 2)
    return offset + scale * rng.normal(size=(n_q, n_k))


def score_row(rng: np.random.Generator):
    """One 1-D row of scores."""
    return 2.0 * rng.normal(size=int(rng.integers(2, 8)))


def large_scores(rng: np.random.Generator):
    """Scores of magnitude ~1000 (positive and negative rows): exp() overflows without the max shift."""
    S = scores(rng, scale=3.0, offset=1000.0)
    S[::2] *= -1
    return S


def weights_values(rng: np.random.Generator):
    """A (n_q, n_k) with rows summing to 1, V (n_k, d_v); n_q, n_k, d_v all different."""
    n_q, n_k, d_v = _distinct(rng, 3)
    e = np.exp(rng.normal(size=(n_q, n_k)))
    return e / e.sum(axis=1, keepdims=True), rng.normal(size=(n_k, d_v))
