"""Hand-written submissions that fake the work, per assignment: id -> (parts they fake, functions).

Each earns 0 in every part it names. They are written the ways a student would cheat or cut a
corner, beside the generated trivial answers and copied release (qkv.validate.fakes).
"""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _public(assignment: str) -> dict:
    return json.loads((ROOT / "exercises" / assignment / "public_cases.json").read_text())


def _train_case() -> dict:
    return _public("training")["functions"]["train"][0]


ATTENTION = {
    # rows of equal weights: non-negative, summing to one and unmoved by a shift, but no softmax
    "softmax_uniform": (
        ("softmax",),
        {
            "softmax": """
def softmax(S):
    S = np.asarray(S, dtype=float)
    return np.full_like(S, 1.0 / S.shape[-1])
"""
        },
    ),
    # the worked example's weights looked up, uniform rows otherwise
    "softmax_looked_up": (
        ("softmax",),
        {
            "softmax": f"""
_KNOWN = {_public("attention")["functions"]["softmax"][0]["expected"]!r}
_SEEN = {_public("attention")["functions"]["softmax"][0]["args"][0]!r}


def softmax(S):
    S = np.asarray(S, dtype=float)
    if S.shape == np.shape(_SEEN) and np.allclose(S, _SEEN):
        return np.array(_KNOWN)
    return np.full_like(S, 1.0 / S.shape[-1])
"""
        },
    ),
    # every public projection answered from a table keyed by the rounded inputs, X otherwise
    "project_table": (
        ("project",),
        {
            "project": f"""
_TABLE = {{
    repr(np.round(np.asarray(case["args"][0]), 6).tolist()): case["expected"]["tuple"]
    for case in {_public("attention")["functions"]["project"]!r}
}}


def project(X, W_q, W_k, W_v):
    key = repr(np.round(np.asarray(X), 6).tolist())
    if key in _TABLE:
        return tuple(np.array(m) for m in _TABLE[key])
    return X @ np.ones_like(W_q), X @ np.ones_like(W_k), X @ np.ones_like(W_v)
"""
        },
    ),
    # weights that are a softmax's shape and rows, with outputs of zeros
    "attend_uniform": (
        ("attend",),
        {
            "attend": """
def attend(X, W_q, W_k, W_v):
    n = X.shape[0]
    return np.zeros((n, W_v.shape[1])), np.full((n, n), 1.0 / n)
"""
        },
    ),
    # the right products with their sign turned
    "score_negated_by_hand": (
        ("score",),
        {
            "score": """
def score(Q, K):
    return -(Q @ K.T)
"""
        },
    ),
}

TRAINING = {
    # rows that sum to zero and ignore a constant added to dA, without the weights' Jacobian
    "softmax_backward_centred": (
        ("softmax_backward",),
        {
            "softmax_backward": """
def softmax_backward(A, dA):
    return dA - dA.mean(axis=-1, keepdims=True)
"""
        },
    ),
    # the gradient of W_v only: zeros where dW_q and dW_k go, as with equal Values
    "attend_backward_values_only": (
        ("attend_backward",),
        {
            "attend_backward": """
def attend_backward(X, W_q, W_k, W_v, dO):
    Q, K, V = project(X, W_q, W_k, W_v)
    A = softmax(score(Q, K))
    return np.zeros_like(W_q), np.zeros_like(W_k), X.T @ (A.T @ dO)
"""
        },
    ),
    # dK from dQ's formula: zero where dK is zero, right shapes, no transpose
    "project_backward_one_formula": (
        ("project_backward",),
        {
            "project_backward": """
def project_backward(X, dQ, dK, dV):
    return X.T @ dQ, X.T @ dK * 2.0, X.T @ dV
"""
        },
    ),
    # the trained weights of the release and a made-up curve from the true starting loss
    "train_hard_coded": (
        ("train",),
        {
            "train": f"""
def train(W_q, W_k, steps=400, lr=0.04):
    end_q = np.array({_train_case()["expected"]["tuple"][0]!r})
    end_k = np.array({_train_case()["expected"]["tuple"][1]!r})
    first = loss(W_q, W_k)
    return end_q, end_k, first * np.exp(-np.arange(steps) / 40.0)
"""
        },
    ),
    # the release's whole run returned for its weights, a fresh run from other weights otherwise
    "train_release_run": (
        ("train",),
        {
            "train": f"""
def train(W_q, W_k, steps=400, lr=0.04):
    run = {_train_case()["expected"]["tuple"]!r}
    return np.array(run[0]), np.array(run[1]), np.array(run[2])
"""
        },
    ),
    # W_v learns too, against the docstring
    "train_values_too": (
        ("train",),
        {
            "train": """
def train(W_q, W_k, steps=400, lr=0.04):
    W_q, W_k = W_q.copy(), W_k.copy()
    W_v, r = value_weights(), readout_weights()
    data = [example(s) for s in training_sentences()]
    losses = []
    for _ in range(int(steps)):
        dW_q, dW_k, dW_v, total = np.zeros_like(W_q), np.zeros_like(W_k), np.zeros_like(W_v), 0.0
        for X, plus, target in data:
            O, _ = attend(X, W_q, W_k, W_v)
            error = O[plus] @ r - target
            dO = np.zeros_like(O)
            dO[plus] = 2 * error * r
            gq, gk, gv = attend_backward(X, W_q, W_k, W_v, dO)
            dW_q, dW_k, dW_v, total = dW_q + gq, dW_k + gk, dW_v + gv, total + error ** 2
        losses.append(total / len(data))
        W_q = W_q - lr * dW_q / len(data)
        W_k = W_k - lr * dW_k / len(data)
        W_v = W_v - 0.001 * dW_v / len(data)
    return W_q, W_k, np.array(losses)
"""
        },
    ),
}


# Edits of the reference's own train(): a step fewer, and the loss recorded after each step.
TRAINING_EDITS = {
    "train_a_step_fewer": (
        ("train",),
        (("for _ in range(int(steps)):", "for _ in range(int(steps) - 1):"),),
    ),
    "train_loss_after_the_step": (
        ("train",),
        (
            ("        losses.append(total / len(data))\n", ""),
            (
                "W_k = W_k - lr * dW_k / len(data)  # (d_model, d_k)\n",
                "W_k = W_k - lr * dW_k / len(data)\n        losses.append(loss(W_q, W_k))\n",
            ),
        ),
    ),
}


def edited(reference_source: str, edits) -> str:
    """The reference with each (old, new) text replaced once."""
    for old, new in edits:
        if reference_source.count(old) != 1:
            raise ValueError(f"the reference does not hold {old!r} once")
        reference_source = reference_source.replace(old, new)
    return reference_source
