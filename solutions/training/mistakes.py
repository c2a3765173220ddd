"""The training assignment's misconception catalogue: each wrong gradient or training loop, with
one sentence a student can act on. The wrong training loops are the reference's train() with a
line or two changed, so they stay in step with it.
"""

import ast
from pathlib import Path

from qkv.content.mistakes import Mistake

REFERENCE_FILE = Path(__file__).with_name("training.py")


def _edit_train(*edits: tuple[str, str]) -> str:
    """The reference's train() with each (old, new) text replaced: a wrong training loop, written once."""
    source = REFERENCE_FILE.read_text(encoding="utf-8")
    node = next(
        n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "train"
    )
    text = "\n".join(
        line
        for line in source.splitlines()[node.lineno - 1 : node.end_lineno]
        if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
    )
    for old, new in edits:
        if old not in text:
            raise ValueError(f"train() has no {old!r} to replace")
        text = text.replace(old, new)
    return text + "\n"


# Each entry: id, the function it lives in, one sentence a student can act on, the wrong code, and
# whether it shows by changing an input rather than by its output.
_ENTRIES = (
    (
        "softmax_backward_diagonal",
        "softmax_backward",
        "dS keeps only the diagonal of softmax's Jacobian (A * (1 - A) * dA): every weight of a row depends on "
        "every score of the row, so subtract the row's sum(dA * A) before multiplying by A.",
        """
def softmax_backward(A, dA):
    return A * (1 - A) * dA
""",
        False,
    ),
    (
        "softmax_backward_sign",
        "softmax_backward",
        "the sign of the row term is flipped: dS = A * (dA - sum(dA * A)), minus the weighted mean, not plus.",
        """
def softmax_backward(A, dA):
    return A * (dA + (dA * A).sum(axis=-1, keepdims=True))
""",
        False,
    ),
    (
        "softmax_backward_axis0",
        "softmax_backward",
        "sum(dA * A) is taken down the columns: softmax normalised each row, so sum along the last axis "
        "(axis=-1, keepdims=True).",
        """
def softmax_backward(A, dA):
    return A * (dA - (dA * A).sum(axis=0, keepdims=True))
""",
        False,
    ),
    (
        "softmax_backward_no_a",
        "softmax_backward",
        "dA minus its weighted mean is not yet dS: multiply by A as well, since each weight moves in proportion "
        "to itself.",
        """
def softmax_backward(A, dA):
    return dA - (dA * A).sum(axis=-1, keepdims=True)
""",
        False,
    ),
    (
        "score_backward_dk_from_rows",
        "score_backward",
        "dK is computed as dS @ Q: key j collects from column j of dS (every query that scored it), so dK = dS.T @ Q.",
        """
def score_backward(Q, K, dS):
    return dS @ K, dS @ Q
""",
        False,
    ),
    (
        "score_backward_swapped",
        "score_backward",
        "dQ and dK are swapped: dQ = dS @ K goes with Q (n_q rows), dK = dS.T @ Q with K (n_k rows).",
        """
def score_backward(Q, K, dS):
    return dS.T @ Q, dS @ K
""",
        False,
    ),
    (
        "aggregate_backward_dv_untransposed",
        "aggregate_backward",
        "dV is computed as A @ dO: value j collects from column j of A (every query that used it), so dV = A.T @ dO.",
        """
def aggregate_backward(A, V, dO):
    return dO @ V.T, A @ dO
""",
        False,
    ),
    (
        "aggregate_backward_da_transposed",
        "aggregate_backward",
        "dA comes out transposed: dA[i, j] = dO[i] . V[j], so dA = dO @ V.T with one row per query.",
        """
def aggregate_backward(A, V, dO):
    return V @ dO.T, A.T @ dO
""",
        False,
    ),
    (
        "project_backward_transposed",
        "project_backward",
        "the gradients come out transposed (dQ.T @ X): a gradient has its matrix's shape, so dW_q = X.T @ dQ.",
        """
def project_backward(X, dQ, dK, dV):
    return dQ.T @ X, dK.T @ X, dV.T @ X
""",
        False,
    ),
    (
        "attend_backward_forgets_dk",
        "attend_backward",
        "dW_k is zero: the scores depend on the Keys too, so carry dK from score_backward through to X.T @ dK.",
        """
def attend_backward(X, W_q, W_k, W_v, dO):
    Q, K, V = project(X, W_q, W_k, W_v)
    A = softmax(score(Q, K))
    dA, dV = aggregate_backward(A, V, dO)
    dQ, dK = score_backward(Q, K, softmax_backward(A, dA))
    return project_backward(X, dQ, np.zeros_like(dK), dV)
""",
        False,
    ),
    (
        "attend_backward_skips_softmax",
        "attend_backward",
        "dA is passed on as if it were dS: the chain goes through softmax, so call softmax_backward(A, dA) first.",
        """
def attend_backward(X, W_q, W_k, W_v, dO):
    Q, K, V = project(X, W_q, W_k, W_v)
    A = softmax(score(Q, K))
    dA, dV = aggregate_backward(A, V, dO)
    dQ, dK = score_backward(Q, K, dA)
    return project_backward(X, dQ, dK, dV)
""",
        False,
    ),
    (
        "train_ascent",
        "train",
        "the loss rises: the weights step along the gradient, which climbs; step against it, W - lr * dW.",
        _edit_train(("W_q - lr", "W_q + lr"), ("W_k - lr", "W_k + lr")),
        False,
    ),
    (
        "train_summed_gradient",
        "train",
        "the step uses the gradients summed over the sentences, not their mean: with 12 sentences that is a step "
        "12 times too long, which overshoots; divide by the number of sentences.",
        _edit_train(("lr * dW_q / len(data)", "lr * dW_q"), ("lr * dW_k / len(data)", "lr * dW_k")),
        False,
    ),
    (
        "train_in_place",
        "train",
        "the caller's W_q and W_k were changed: copy them first (W_q = W_q.copy()) and update the copies, so the "
        "starting weights stay as they were.",
        _edit_train(
            ("W_q, W_k = W_q.copy(), W_k.copy()", "pass"),
            ("W_q = W_q - lr", "W_q -= lr"),
            ("W_k = W_k - lr", "W_k -= lr"),
            ("return W_q, W_k,", "return W_q.copy(), W_k.copy(),"),
        ),
        True,
    ),
    (
        "train_learning_rate_too_large",
        "train",
        "the learning rate is too large: the first step overshoots into scores so large that softmax saturates, "
        "its gradient vanishes and the loss jumps up and stays (or turns into nan); keep the given lr=0.04.",
        _edit_train(("lr=0.04", "lr=1.0")),
        False,
    ),
)

CATALOGUE = tuple(Mistake(*entry) for entry in _ENTRIES)
