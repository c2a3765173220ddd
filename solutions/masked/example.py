"""The "two plus three equals" example: two heads, one that finds the numbers, one the operator.

Every feature describes the token itself: [is a number, is an operator, its value, is "equals"].
Each head has d_k = 2. Head 0 asks "where are the numbers?": its Key advertises [number, operator]
and every Query asks for a number and away from an operator. Head 1 asks "which operation?": its
Key advertises [operator, equals] and every Query asks for an operator and away from "equals".
"equals" asks more sharply than the others. Head 0's Value is a token's value, head 1's is how
much of an operator it is, and W_o reads twice head 0 (a weighted average of two numbers, doubled,
is their sum) and head 1 as it is.

With the causal mask "plus" cannot see "three": its head 0 reads "two" alone, and it would say 4.
"equals" comes last and sees everything: it reads about 5, and head 1 tells it the operation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOKENS = ("two", "plus", "three", "equals")
FEATURES = ("number", "operator", "value", "equals")
HEAD_NAMES = ("numbers", "operator")
OUTPUTS = ("sum", "operation")
N_HEADS = 2

X = np.array(
    [
        [1.0, 0.0, 2.0, 0.0],  # two: a number worth 2
        [0.0, 1.0, 0.0, 0.0],  # plus: an operator
        [1.0, 0.0, 3.0, 0.0],  # three: a number worth 3
        [0.0, 0.0, 0.0, 1.0],  # equals: the end of the question
    ]
)  # (n=4, d_model=4)

W_q = np.array(
    [
        [2.0, -2.0, 2.0, -2.0],  # a number asks for numbers (head 0) and for operators (head 1)
        [2.0, -2.0, 2.0, -2.0],  # so does an operator
        [0.0, 0.0, 0.0, 0.0],  # the value asks for nothing
        [3.0, -3.0, 3.0, -3.0],  # "equals" asks the same, more sharply
    ]
)  # (d_model=4, n_heads * d_k = 4): head 0 [number?, operator?], head 1 [operator?, equals?]

W_k = np.array(
    [
        [2.0, 0.0, 0.0, 0.0],  # head 0: "I am a number"
        [0.0, 2.0, 2.0, 0.0],  # head 0 and head 1: "I am an operator"
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 2.0],  # head 1: "I am 'equals'"
    ]
)  # (d_model=4, n_heads * d_k = 4): head 0 [number, operator], head 1 [operator, equals]

W_v = np.array(
    [
        [0.0, 0.0],
        [0.0, 1.0],  # head 1 passes on the operator
        [1.0, 0.0],  # head 0 passes on the value
        [0.0, 0.0],
    ]
)  # (d_model=4, n_heads * d_v = 2)

W_o = np.array(
    [
        [2.0, 0.0],  # twice head 0's average of the numbers: their sum
        [0.0, 1.0],  # head 1's operator, as it is
    ]
)  # (n_heads * d_v = 2, d_out = 2): [sum, operation]


@dataclass(frozen=True)
class Fixture:
    tokens: tuple[str, ...]
    X: np.ndarray
    W_q: np.ndarray
    W_k: np.ndarray
    W_v: np.ndarray
    W_o: np.ndarray
    n_heads: int
    mask: np.ndarray  # the causal mask of the example
    S: np.ndarray  # (n_heads, n, n) scaled scores
    A: np.ndarray  # (n_heads, n, n) causal attention, per head
    O: np.ndarray  # (n, d_out) causal outputs
    A_both_ways: np.ndarray  # (n_heads, n, n) without a mask
    O_both_ways: np.ndarray

    def inputs(self, masked: bool = True):
        """multi_head_attend's arguments on the example, with the causal mask or without one."""
        args = (self.X, self.W_q, self.W_k, self.W_v, self.W_o, self.n_heads)
        return (*args, self.mask) if masked else args

    def projections(self):
        """Q, K and V of every head: (n_heads, n, d) each."""
        return tuple(split(self.X @ W, self.n_heads) for W in (self.W_q, self.W_k, self.W_v))

    def matrices(self) -> dict:
        """The example's matrices a quiz may ask about: name -> (values, row labels, column labels)."""
        t = self.tokens
        return {
            "A_numbers": (self.A[0], t, t),
            "A_operator": (self.A[1], t, t),
            "A_numbers_both_ways": (self.A_both_ways[0], t, t),
            "O": (self.O, t, OUTPUTS),
            "O_both_ways": (self.O_both_ways, t, OUTPUTS),
        }

    def render(self) -> str:
        return render(self)

    def as_json(self) -> dict:
        names = ("X", "W_q", "W_k", "W_v", "W_o", "mask", "S", "A", "O", "A_both_ways")
        return {
            "tokens": list(self.tokens),
            "n_heads": self.n_heads,
            "heads": list(HEAD_NAMES),
            **{k: getattr(self, k).tolist() for k in names},
            "O_both_ways": self.O_both_ways.tolist(),
        }


def split(M: np.ndarray, n_heads: int) -> np.ndarray:
    n, width = M.shape
    return M.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)


def build(reference) -> Fixture:
    """Compute the example's scores, attention and outputs with the given reference module."""
    mask = reference.causal_mask(len(TOKENS))
    Q, K, _ = (split(X @ W, N_HEADS) for W in (W_q, W_k, W_v))
    S = reference.scaled_score(Q, K)
    O, A = reference.multi_head_attend(X, W_q, W_k, W_v, W_o, N_HEADS, mask)
    O2, A2 = reference.multi_head_attend(X, W_q, W_k, W_v, W_o, N_HEADS)
    copies = (a.copy() for a in (X, W_q, W_k, W_v, W_o))
    return Fixture(TOKENS, *copies, N_HEADS, mask, S, A, O, A2, O2)


def _table(title: str, matrix: np.ndarray, rows, cols) -> str:
    width = max(8, *(len(c) + 2 for c in cols))
    head = " " * 8 + "".join(f"{c:>{width}}" for c in cols)
    lines = [title, head]
    for name, row in zip(rows, matrix):
        cells = (f"{v:>{width}.3f}" if isinstance(v, float) else f"{v!s:>{width}}" for v in row)
        lines.append(f"{name:<8}" + "".join(cells))
    return "\n".join(lines)


def render(fx: Fixture) -> str:
    """A readable text version of the example, for the terminal."""
    t = fx.tokens
    plus, equals = t.index("plus"), t.index("equals")
    heads = [
        _table(f"A, head {h} ('{name}'), causal: row attends to column", fx.A[h], t, t)
        for h, name in enumerate(HEAD_NAMES)
    ]
    parts = [
        "The 'two plus three equals' example: 2 heads, scores scaled by 1/sqrt(d_k), causal",
        "",
        _table("X: token embeddings", fx.X, t, FEATURES),
        "",
        _table("causal mask: True where the row may attend to the column", fx.mask, t, t),
        "",
        *(x for h in heads for x in (h, "")),
        _table("O = concat(heads) @ W_o: outputs", fx.O, t, OUTPUTS),
        "",
        f"'plus' cannot see 'three': its numbers head reads 'two' alone ({fx.A[0, plus, 0]:.2f}), so it",
        f"would say {fx.O[plus, 0]:.2f}; without the mask it says {fx.O_both_ways[plus, 0]:.2f}.",
        f"'equals' comes last and sees everything: sum {fx.O[equals, 0]:.2f}, "
        f"operation {fx.O[equals, 1]:.2f} (its operator head on 'plus').",
    ]
    return "\n".join(parts)
