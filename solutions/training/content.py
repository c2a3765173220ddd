"""The training assignment as the engine sees it: its functions, mistakes, worked example and hooks.

Everything specific to "how 'plus' learns what to ask" that the engine needs is named here (see
autograder/content/loader.py for what each name means); the other modules of this folder hold the
details: example.py (before and after training), cases.py (random cases, finite differences, what
a trained model must achieve) and mistakes.py (the catalogue).
"""

from pathlib import Path

import numpy as np

from qkv.content.figures import Curve, Matrix, Note, Section

from . import cases
from . import example as _example
from .mistakes import CATALOGUE as MISTAKES

FUNCTIONS = (
    "softmax_backward",
    "score_backward",
    "aggregate_backward",
    "project_backward",
    "attend_backward",
    "train",
)
TUPLE_NAMES = {
    "score_backward": ("dQ", "dK"),
    "aggregate_backward": ("dA", "dV"),
    "project_backward": ("dW_q", "dW_k", "dW_v"),
    "attend_backward": ("dW_q", "dW_k", "dW_v"),
    "train": ("W_q", "W_k", "losses"),
}
CHAIN = ("attend_backward", "train")
ENDLESS = "softmax_backward"

__all__ = [
    "CHAIN",
    "ENDLESS",
    "FUNCTIONS",
    "HONEST_VARIANTS",
    "MISTAKES",
    "NOTEBOOK_SNIPPETS",
    "QUIZ_COMPUTE",
    "SYNTHETIC_QUIZ_MISTAKE",
    "TUPLE_NAMES",
    "cases",
    "example",
    "feedback_section",
    "public_cases",
]


def example(reference, seed):
    """'two plus three' before and after training the reference from init_weights(seed)."""
    return _example.build(reference, seed)


def public_cases(reference, worked):
    """The fixed cases of the student's own checks: the example's backward pass and a few small ones."""
    row, up = np.array([0.5, 0.2, 0.3]), np.array([1.0, -1.0, 0.5])  # (3,) weights and dL/dA
    a23 = np.array([[0.5, 0.25, 0.25], [0.1, 0.6, 0.3]])  # (n_q=2, n_k=3) weights
    q2 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])  # (n_q=2, d_k=3)
    k4 = np.array(
        [[1.0, 1.0, 0.0], [0.0, 2.0, 1.0], [-1.0, 0.0, 1.0], [0.5, 0.5, 0.5]]
    )  # (n_k=4, d_k=3)
    ds24 = np.array([[1.0, 0.0, -1.0, 0.5], [0.0, 2.0, 0.0, -1.0]])  # (n_q=2, n_k=4)
    v32 = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 4.0]])  # (n_k=3, d_v=2)
    do22 = np.array([[1.0, -1.0], [0.5, 2.0]])  # (n_q=2, d_v=2)
    return {
        "softmax_backward": [
            ("the 'two plus three' weights and their gradient", worked.inputs("softmax_backward")),
            ("one row of weights [0.5, 0.2, 0.3]", (row, up)),
            ("2 rows of 3 weights", (a23, np.array([[1.0, 0.0, 0.0], [0.0, 2.0, -1.0]]))),
        ],
        "score_backward": [
            ("the 'two plus three' Q, K and dS", worked.inputs("score_backward")),
            ("2 queries against 4 keys", (q2, k4, ds24)),
        ],
        "aggregate_backward": [
            ("the 'two plus three' A, V and dO", worked.inputs("aggregate_backward")),
            ("2 queries mixing 3 values", (a23, v32, do22)),
        ],
        "project_backward": [
            ("the 'two plus three' X, dQ, dK and dV", worked.inputs("project_backward"))
        ],
        "attend_backward": [("the 'two plus three' example", worked.inputs("attend_backward"))],
        "train": [("training from the course seed's weights", worked.inputs("train"))],
    }


# Answers the quiz computes per student: (input names, function of the reference and the inputs).
QUIZ_COMPUTE = {
    "readout": (
        ("scores",),
        lambda ref, scores: float(
            ref.readout_weights()[0] * ref.softmax(scores) @ np.array([2.0, 0.0, 3.0])
        ),
    ),
    "softmax_backward": (
        ("weights", "upstream"),
        lambda ref, weights, upstream: ref.softmax_backward(weights, upstream),
    ),
    "query_gradient": (
        ("upstream", "keys"),
        lambda ref, upstream, keys: ref.score_backward(
            np.zeros((1, keys.shape[1])), keys, upstream[None, :]
        )[0][0],
    ),
}

# Correct solutions written differently from the reference: the suites must not care how.
HONEST_VARIANTS = {
    "loops": {
        "softmax_backward": """
def softmax_backward(A, dA):
    A2, dA2 = np.atleast_2d(A), np.atleast_2d(dA)
    dS = np.zeros_like(A2)
    for r in range(A2.shape[0]):
        for i in range(A2.shape[1]):
            for j in range(A2.shape[1]):
                jacobian = A2[r, i] * ((i == j) - A2[r, j])  # d A[r, i] / d S[r, j]
                dS[r, j] += jacobian * dA2[r, i]
    return dS.reshape(A.shape)
""",
        "score_backward": """
def score_backward(Q, K, dS):
    dQ, dK = np.zeros_like(Q), np.zeros_like(K)
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            dQ[i] += dS[i, j] * K[j]
            dK[j] += dS[i, j] * Q[i]
    return dQ, dK
""",
    },
    "einsum": {
        "aggregate_backward": """
def aggregate_backward(A, V, dO):
    return np.einsum("qd,kd->qk", dO, V), np.einsum("qk,qd->kd", A, dO)
""",
        "project_backward": """
def project_backward(X, dQ, dK, dV):
    return tuple(np.einsum("nm,nc->mc", X, g) for g in (dQ, dK, dV))
""",
    },
}

NOTEBOOK_SNIPPETS = {
    name: Path(__file__).with_name(f"{name}_cell.py").read_text(encoding="utf-8")
    for name in ("training_plots",)
}

# What the synthetic class's mistaken students answer: the course's first table's 0.10, copied.
SYNTHETIC_QUIZ_MISTAKE = "softmax-jacobian: [0.5, 0.2, 0.3]"


# -- the feedback page: the student's training curve and trained row beside the reference's ------

INTRO = (
    "Your train() from the course seed's weights, judged on “two plus three”: the mean loss over the "
    "training sentences at every step, and how “plus” shares its attention once trained."
)


def feedback_section(recorded: dict, worked, tolerance) -> Section:
    """The student's loss curve and trained 'plus' row (recorded by the train suite) beside the reference's."""
    tokens = tuple(worked.tokens)
    ref_curve = Curve(
        "Reference loss",
        tuple(float(x) for x in worked.losses),
        xlabel="step",
        ylabel="mean loss",
        log=True,
        alt="The reference's training loss, falling",
    )
    ref_row = Matrix(
        "Reference, trained",
        np.array([worked.after["plus_row"]]),
        ("plus",),
        tokens,
        caption=f"Reads out {worked.after['prediction']:.3f} for 'two plus three'.",
        alt="The reference's trained row of 'plus'",
    )
    mine = recorded.get("training")
    if not mine:
        return Section(
            "How “plus” learned",
            INTRO,
            (
                Note(
                    "Your train() returned no weights that could be judged, so there is nothing to draw yet; "
                    "the train checks below say why."
                ),
                ref_curve,
                ref_row,
            ),
        )
    curve = Curve(
        "Your loss",
        tuple(mine["losses"]),
        xlabel="step",
        ylabel="mean loss",
        log=True,
        every=mine["every"],
        alt="Your training loss",
    )
    prediction = mine.get("prediction")
    reads = (
        f"Reads out {prediction:.3f}"
        if isinstance(prediction, (int, float))
        else "Reads out no finite number"
    )
    row = Matrix(
        "Yours, trained",
        np.array([mine["plus_row"]], dtype=float),
        ("plus",),
        tokens,
        caption=f"{reads} for 'two plus three' (the sum is 5).",
        alt="Your trained row of 'plus'",
    )
    return Section("How “plus” learned", INTRO, (curve, ref_curve, row, ref_row))
