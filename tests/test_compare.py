"""compare.same and its shortcuts decide exactly what the full element-wise comparison decides."""
import itertools

import numpy as np

from autograder.public import compare

SPECIAL = [0.0, -0.0, 1.0, 1.0 + 1e-9, 1.001, -1.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 5e-324]


def test_all_close_is_close_all_for_every_pair_of_special_values():
    for (a, b), (c, d) in itertools.product(itertools.product(SPECIAL, repeat=2), repeat=2):
        x, y = np.array([a, c]), np.array([b, d])
        for rtol, atol in ((1e-6, 1e-8), (0.0, 0.0), (1e-3, 0.0)):
            with np.errstate(all="ignore"):
                assert compare._all_close(x, y, rtol, atol) == bool(compare.close(x, y, rtol, atol).all()), (x, y)


def test_same_is_what_problem_returns_none_for():
    rng = np.random.default_rng(7)
    base = rng.normal(size=(3, 4))
    candidates = [base, base + 1e-12, base * 1.01, base.T, base.tolist(), (base, base), [base, base], None, "x",
                  np.where(base > 0, np.nan, base), np.full((3, 4), np.inf)]
    for actual in candidates:
        for expected in (base, (base, base), np.where(base > 0, np.nan, base)):
            assert compare.same(actual, expected, 1e-6, 1e-8) == (
                compare.problem(actual, expected, rtol=1e-6, atol=1e-8) is None), (actual, expected)
