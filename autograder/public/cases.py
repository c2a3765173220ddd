"""The fixed public cases students may see, with the expected values and the catalogued wrong ones.

Written into the release as public_cases.json; the hidden suites draw their own seeded cases.
"""
from __future__ import annotations

import numpy as np

from autograder.grading import fixture
from autograder.grading import mistakes
from autograder.public.checks import encode


def _cases(fx: fixture.Fixture, reference) -> dict[str, list[tuple[str, tuple]]]:
    Q, K, V = reference.project(*fx.inputs())
    q2 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])  # (n_q=2, d_k=3)
    k4 = np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 1.0], [-1.0, 0.0, 1.0], [0.5, 0.5, 0.5]])  # (n_k=4, d_k=3)
    a23 = np.array([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]])  # (n_q=2, n_k=3)
    v32 = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 4.0]])  # (n_k=3, d_v=2)
    return {
        "project": [("the 'two plus three' embeddings", fx.inputs())],
        "score": [("the 'two plus three' Q and K", (Q, K)),
                  ("2 queries against 4 keys", (q2, k4))],
        "softmax": [("the 'two plus three' scores", (fx.S,)),
                    ("the seed's row of scores [2.1, 0.3, 2.0] for 'plus'", (np.array([2.1, 0.3, 2.0]),)),
                    ("scores near 1000", (np.array([[1000.0, 1001.0, 1002.0], [-1000.0, 0.0, 1000.0]]),))],
        "aggregate": [("the 'two plus three' weights and values", (fx.A, V)),
                      ("2 queries mixing 3 values", (a23, v32))],
        "attend": [("the 'two plus three' example", fx.inputs())],
    }


def build(reference, *, rtol: float, atol: float) -> dict:
    """The content of public_cases.json."""
    fx = fixture.build(reference)
    functions = {}
    for function, cases in _cases(fx, reference).items():
        entries = []
        for name, args in cases:
            expected = getattr(reference, function)(*[np.array(a) for a in args])
            entries.append({
                "name": name,
                "args": [encode(a) for a in args],
                "expected": encode(expected),
                "variants": [[msg, encode(v)] for msg, v in mistakes.variants(reference, function, args)],
                "mutation_message": mistakes.mutation_message(function),
            })
        functions[function] = entries
    return {"tolerance": {"rtol": rtol, "atol": atol}, "functions": functions}
