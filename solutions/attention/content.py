"""The attention assignment as the engine sees it: its functions, mistakes, worked example and hooks.

Everything specific to "Query, Key, Value on 'two plus three'" that the engine needs is named here
(see autograder/content/loader.py for what each name means); the other modules of this folder hold
the details.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from qkv.content.figures import Matrix, Note, Section

from . import cases
from . import example as _example
from . import honest as _honest
from .mistakes import CATALOGUE as MISTAKES

FUNCTIONS = ("project", "score", "softmax", "aggregate", "attend")
TUPLE_NAMES = {"project": ("Q", "K", "V"), "attend": ("O", "A")}
CHAIN = "attend"
ENDLESS = "softmax"

__all__ = [
    "CHAIN",
    "ENDLESS",
    "FUNCTIONS",
    "HONEST_VARIANTS",
    "MISTAKES",
    "NOTEBOOK_SNIPPETS",
    "QUIZ_COMPUTE",
    "TUPLE_NAMES",
    "cases",
    "example",
    "feedback_section",
    "public_cases",
]


def example(reference):
    """The 'two plus three' example, computed with `reference`."""
    return _example.build(reference)


def public_cases(reference, worked):
    return cases.public(worked, reference)


# Answers the quiz computes per student: (input names, function of the reference and the inputs).
QUIZ_COMPUTE = {
    "softmax": (("scores",), lambda ref, scores: ref.softmax(scores)),
    "dot": (("q", "k"), lambda ref, q, k: ref.score(q[None, :], k[None, :])[0, 0]),
    "aggregate": (
        ("weights", "values"),
        lambda ref, weights, values: ref.aggregate(weights[None, :], values[:, None])[0, 0],
    ),
}

# Correct solutions written differently from the reference (honest.py): the suites must not care how.
HONEST_VARIANTS = _honest.VARIANTS

NOTEBOOK_SNIPPETS = {
    "heatmap": (Path(__file__).with_name("heatmap_cell.py")).read_text(encoding="utf-8")
}

# -- the feedback page: the student's attention matrix on the example beside the reference's -------

MAX_MATRIX_SIDE = 12  # a bigger "attention matrix" is not worth drawing; it is described instead
MAP_CAPTION = (
    "Rows are the token that attends (its Query); columns are the token it attends to (its "
    "Key). Each row is one softmax, so each row should sum to 1 (Σ on the right)."
)
AXES = {"xlabel": "attends to (key)", "ylabel": "token (query)"}


def _student_matrix(value):
    """The student's matrix if it can be drawn, else why not (in words for the student)."""
    if value is None:
        return None, (
            "Your attend() did not return an attention matrix for this example, so there "
            "is nothing to draw yet; the attend checks below say why."
        )
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        return None, "Your attend() returned something that is not a matrix of numbers."
    if (
        a.ndim != 2
        or not 0 < a.shape[0] <= MAX_MATRIX_SIDE
        or not 0 < a.shape[1] <= MAX_MATRIX_SIDE
    ):
        return None, (
            f"Your attend() returned an attention matrix of shape {a.shape}; "
            "with three tokens it should be 3 × 3."
        )
    return a, ""


def _differences(mine, off, tokens) -> str:
    """Which cells differ, in words, and what the rows and columns of the student's matrix sum to."""
    cells = [f"{tokens[i]} → {tokens[j]}" for i, j in zip(*np.nonzero(off))]
    shown = ", ".join(cells[:6]) + (f" and {len(cells) - 6} more" if len(cells) > 6 else "")
    said = f"{len(cells)} of {off.size} cells (framed in red) differ from the reference: {shown}."
    rows_one = np.allclose(mine.sum(axis=1), 1.0, atol=1e-6)
    cols_one = np.allclose(mine.sum(axis=0), 1.0, atol=1e-6)
    if cols_one and not rows_one:
        said += (
            " Its columns sum to 1 and its rows do not: the softmax was taken along the wrong "
            "axis (axis 0, down each column, instead of the last axis, along each row)."
        )
    elif not rows_one:
        said += " Its rows do not sum to 1, as rows of softmax weights must."
    return said


def feedback_section(recorded: dict, worked, tolerance) -> Section:
    """'Who attends to whom': the student's A on the example (recorded by the attend suite) and the reference's."""
    tokens = tuple(worked.tokens)
    ref_fig = Matrix(
        "Reference",
        worked.A,
        tokens,
        tokens,
        caption="The reference.",
        alt="The reference attention matrix for 'two plus three'",
        **AXES,
    )
    mine, problem = _student_matrix(recorded.get("attention"))
    if mine is None:
        return Section(
            "Who attends to whom in “two plus three”", MAP_CAPTION, (Note(problem), ref_fig)
        )
    same_shape = mine.shape == worked.A.shape
    off = (
        ~np.isclose(mine, worked.A, rtol=tolerance.rtol, atol=tolerance.atol)
        if same_shape
        else None
    )

    def label(n, i):
        return tokens[i] if n == len(tokens) else f"#{i}"

    if not same_shape:
        note = f"Its shape is {mine.shape}; with three tokens it should be 3 × 3."
    elif off.any():
        note = _differences(mine, off, tokens)
    else:
        note = "Nothing differs: it matches the reference in every cell."
    yours = Matrix(
        "Yours",
        mine,
        tuple(label(mine.shape[0], i) for i in range(mine.shape[0])),
        tuple(label(mine.shape[1], j) for j in range(mine.shape[1])),
        outline=off,
        caption=f"What your attend() returned. {note}",
        alt="Your attention matrix for 'two plus three'",
        **AXES,
    )
    return Section("Who attends to whom in “two plus three”", MAP_CAPTION, (yours, ref_fig))


# What the synthetic class's mistaken students answer: the seed text's weights, copied.
SYNTHETIC_QUIZ_MISTAKE = "seed-scores: [0.45, 0.10, 0.45]"


def mutant_inputs(rng):
    """Random inputs per function for `qkv validate --mutants` to tell equivalent mutants apart."""
    return {
        "project": cases.projection(rng),
        "score": cases.queries_keys(rng),
        "softmax": (cases.large_scores(rng),),
        "aggregate": cases.weights_values(rng),
        "attend": cases.projection(rng),
    }
