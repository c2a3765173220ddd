"""The "two plus three" example: three tokens whose attention matrix is the one the course teaches.

Every feature describes the token itself, never its position: [how much a number, how much an
operator (these two are the seed text's), its value, is even, is odd]. A Key advertises [I am a
number, I am an operator, my parity (+1 even, -1 odd)]. A Query asks: an operator asks for
numbers; a number asks for its own parity and away from operators. So "plus" looks for numbers
and ignores itself because its Key says "operator", a direction its Query does not share (their
cosine is about -0.08), not because its Key is short (1.17, against 1.42 and 1.44). The Values
carry what a token is worth, its value: the output of "plus" is 0.45 x 2 + 0.10 x 0 + 0.45 x 3,
about 2.25, visibly a mix of two and three. Every token sees every other one (bidirectional); a
causal mask would let "plus" see only "two" and itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOKENS = ("two", "plus", "three")
FEATURES = (
    "number",
    "operator",
    "value",
    "even",
    "odd",
)  # what each embedding component says of its token
KEY_FEATURES = ("number", "operator", "parity")  # what a Key advertises (and a Query asks for)

X = np.array(
    [
        [0.8, 0.1, 2.0, 1.0, 0.0],  # two: mostly a number, worth 2, even
        [0.1, 0.9, 0.0, 0.0, 0.0],  # plus: mostly an operator, worth nothing
        [0.7, 0.2, 3.0, 0.0, 1.0],  # three: mostly a number, worth 3, odd
    ]
)  # (n=3, d_model=5)

W_q = np.array(
    [
        [0.0, -1.10, 0.0],  # a number asks away from operators
        [1.55, 0.0, 0.0],  # an operator asks for numbers
        [0.0, 0.0, 0.0],  # the value asks for nothing
        [0.0, 0.0, 0.99],  # an even number asks for even
        [0.0, 0.0, -1.08],  # an odd number asks for odd
    ]
)  # (d_model=5, d_k=3): [number?, operator?, parity?]

W_k = np.array(
    [
        [0.0, 0.0, 0.0],
        [0.0, 1.3, 0.0],  # "I am an operator"
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 1.0],  # "I am a number, and even"
        [1.0, 0.0, -1.0],  # "I am a number, and odd"
    ]
)  # (d_model=5, d_k=3): [number, operator, parity]

W_v = np.array(
    [
        [0.0],
        [0.0],
        [1.0],  # a token passes on its value
        [0.0],
        [0.0],
    ]
)  # (d_model=5, d_v=1): [value]

# The table the course teaches (rows: who attends; columns: to whom); the fixture matches it to 0.01.
TEACHING_TABLE = np.array(
    [
        [0.80, 0.10, 0.10],
        [0.45, 0.10, 0.45],
        [0.10, 0.10, 0.80],
    ]
)


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
        d_v = ("value",) if self.O.shape[1] == 1 else tuple(f"d{i}" for i in range(self.O.shape[1]))
        return {
            "S": (self.S, self.tokens, self.tokens),
            "A": (self.A, self.tokens, self.tokens),
            "O": (self.O, self.tokens, d_v),
        }

    def render(self) -> str:
        return render(self)

    def as_json(self) -> dict:
        return {
            "tokens": list(self.tokens),
            **{k: getattr(self, k).tolist() for k in ("X", "W_q", "W_k", "W_v", "S", "A", "O")},
        }


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

    def dims(n):
        return [f"d{i}" for i in range(n)]

    plus = fx.tokens.index("plus")
    parts = [
        "The 'two plus three' example (raw dot-product scores, no 1/sqrt(d_k) scaling)",
        "",
        _table("X: token embeddings", fx.X, fx.tokens, FEATURES),
        "",
        _table("W_q (d_model x d_k): what each feature asks for", fx.W_q, FEATURES, KEY_FEATURES),
        "",
        _table("W_k (d_model x d_k): what each feature advertises", fx.W_k, FEATURES, KEY_FEATURES),
        "",
        _table(
            "W_v (d_model x d_v): what each feature passes on",
            fx.W_v,
            FEATURES,
            ("value",) if fx.W_v.shape[1] == 1 else dims(fx.W_v.shape[1]),
        ),
        "",
        _table("S = Q K^T: scores (row attends to column)", fx.S, fx.tokens, fx.tokens),
        "",
        _table("A = softmax(S): attention weights, each row sums to 1", fx.A, fx.tokens, fx.tokens),
        "",
        _table(
            "O = A V: outputs",
            fx.O,
            fx.tokens,
            ("value",) if fx.O.shape[1] == 1 else dims(fx.O.shape[1]),
        ),
        "",
        f"'plus' puts {fx.A[plus, 0] + fx.A[plus, 2]:.0%} of its attention on the two numbers; its output {fx.O[plus, 0]:.2f} is their weighted",
        "average (not their sum): a layer after attention has to turn that mix into 5.",
        "Every token sees every other one here (bidirectional); a causal mask would hide 'three' from 'plus'.",
    ]
    return "\n".join(parts)
