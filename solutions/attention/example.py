"""The "two plus three" example: three tokens whose attention matrix is the one the course teaches.

Embedding components: [is a number, is an operator, first operand, second operand]. The first two
are the seed text's. Keys advertise [number-ness, first operand, second operand]; "two" and "three"
ask for themselves, while "plus" asks for numbers (with a small nudge to the second operand, so the
two numbers come out even).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOKENS = ("two", "plus", "three")

X = np.array([
    [0.8, 0.1, 1.0, 0.0],  # two
    [0.1, 0.9, 0.0, 0.0],  # plus
    [0.7, 0.2, 0.0, 1.0],  # three
])  # (n=3, d_model=4)

W_q = np.array([
    [-0.12, 0.78, 0.66],
    [2.40, -0.09, 0.17],
    [-0.15, 1.46, -0.55],
    [-0.40, -0.53, 1.58],
])  # (d_model=4, d_k=3)

W_k = np.array([
    [1.0, 0.0, 0.0],
    [0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
])  # (d_model=4, d_k=3)

W_v = np.array([
    [1.0, 0.0],
    [0.0, 1.0],
    [0.5, 0.0],
    [0.5, 0.0],
])  # (d_model=4, d_v=2): [how much number, how much operator]

# The table the course teaches (rows: who attends; columns: to whom); the fixture matches it to 0.01.
TEACHING_TABLE = np.array([
    [0.80, 0.10, 0.10],
    [0.45, 0.10, 0.45],
    [0.10, 0.10, 0.80],
])


@dataclass(frozen=True)
class Fixture:
    tokens: tuple[str, ...]
    X: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    W_v: np.ndarray
    S: np.ndarray
    A: np.ndarray
    O: np.ndarray

    def inputs(self):
        return self.X, self.W_q, self.W_k, self.W_v

    def matrices(self) -> dict:
        """The example's matrices a quiz may ask about: name -> (values, row labels, column labels)."""
        d_v = [f"d{i}" for i in range(self.O.shape[1])]
        return {"S": (self.S, self.tokens, self.tokens), "A": (self.A, self.tokens, self.tokens),
                "O": (self.O, self.tokens, tuple(d_v))}

    def render(self) -> str:
        return render(self)

    def as_json(self) -> dict:
        return {"tokens": list(self.tokens), **{k: getattr(self, k).tolist()
                                                 for k in ("X", "W_q", "W_k", "W_v", "S", "A", "O")}}


def build(reference) -> Fixture:
    """Compute S, A and O for the example with the given reference module."""
    Q, K, V = reference.project(X, W_q, W_k, W_v)
    S = reference.score(Q, K)
    A = reference.softmax(S)
    O = reference.aggregate(A, V)
    return Fixture(TOKENS, X.copy(), W_q.copy(), W_k.copy(), W_v.copy(), S, A, O)


def _table(title: str, matrix: np.ndarray, rows, cols) -> str:
    width = max(7, *(len(c) + 2 for c in cols))
    head = " " * 8 + "".join(f"{c:>{width}}" for c in cols)
    lines = [f"{title}", head]
    for name, row in zip(rows, matrix):
        lines.append(f"{name:<8}" + "".join(f"{v:>{width}.3f}" for v in row))
    return "\n".join(lines)


def render(fx: Fixture) -> str:
    """A readable text version of the example, for the terminal."""
    dims = lambda n: [f"d{i}" for i in range(n)]  # noqa: E731
    parts = [
        "The 'two plus three' example (raw dot-product scores, no 1/sqrt(d_k) scaling)",
        "",
        _table("X: token embeddings [number, operator, first, second]", fx.X, fx.tokens, dims(fx.X.shape[1])),
        "",
        _table("W_q (d_model x d_k)", fx.W_q, dims(fx.W_q.shape[0]), dims(fx.W_q.shape[1])),
        "",
        _table("W_k (d_model x d_k)", fx.W_k, dims(fx.W_k.shape[0]), dims(fx.W_k.shape[1])),
        "",
        _table("W_v (d_model x d_v)", fx.W_v, dims(fx.W_v.shape[0]), dims(fx.W_v.shape[1])),
        "",
        _table("S = Q K^T: scores (row attends to column)", fx.S, fx.tokens, fx.tokens),
        "",
        _table("A = softmax(S): attention weights, each row sums to 1", fx.A, fx.tokens, fx.tokens),
        "",
        _table("O = A V: outputs", fx.O, fx.tokens, dims(fx.O.shape[1])),
        "",
        "'plus' puts {:.0%} of its attention on the two numbers.".format(fx.A[1, 0] + fx.A[1, 2]),
    ]
    return "\n".join(parts)
