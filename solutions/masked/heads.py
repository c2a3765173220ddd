"""The feedback page of the masked assignment: each head's attention on the example, the student's
beside the reference's."""

from __future__ import annotations

import numpy as np

from qkv.content.figures import Matrix, Note, Section

from .cases import ROUNDED
from .example import HEAD_NAMES

HEADING = "What each head attends to in “two plus three equals”"
INTRO = (
    "Your multi_head_attend() on the example, with the causal mask, head by head. Rows are the "
    "token that attends (its Query); columns are the token it attends to (its Key). Above the "
    "diagonal is the future, which a causal model must not see: every weight there is 0. Each "
    "row sums to 1 (Σ on the right)."
)
AXES = {"xlabel": "attends to (key)", "ylabel": "token (query)"}


def _reference(worked, h: int) -> Matrix:
    return Matrix(
        f"Reference, head {h} ({HEAD_NAMES[h]})",
        worked.A[h],
        worked.tokens,
        worked.tokens,
        caption="The reference.",
        alt=f"The reference's attention of head {h} ({HEAD_NAMES[h]}) on 'two plus three equals'",
        **AXES,
    )


def _differences(mine, off, tokens) -> str:
    """Which cells of one head differ, in words, and which way its weights sum to 1 if not along
    its rows (the example's causal mask keeps at least the diagonal of every row and column)."""
    cells = [f"{tokens[i]} → {tokens[j]}" for i, j in zip(*np.nonzero(off))]
    shown = ", ".join(cells[:6]) + (f" and {len(cells) - 6} more" if len(cells) > 6 else "")
    said = f"{len(cells)} of {off.size} cells (framed in red) differ from the reference: {shown}."
    slack = mine.shape[-1] * 10.0**-ROUNDED  # the recorded weights are rounded
    rows_one = np.allclose(mine.sum(axis=-1), 1.0, atol=slack)
    cols_one = np.allclose(mine.sum(axis=-2), 1.0, atol=slack)
    if cols_one and not rows_one:
        said += (
            " Its columns sum to 1 and its rows do not: masked_softmax() normalised along the "
            "wrong axis (axis -2, down each column, instead of the last axis, along each row)."
        )
    elif not rows_one:
        said += " Its rows do not sum to 1, as rows of softmax weights must."
    return said


def feedback_section(recorded: dict, worked, tolerance) -> Section:
    """The student's heads (recorded by the multi_head_attend suite) beside the reference's."""
    refs = [_reference(worked, h) for h in range(worked.n_heads)]
    mine = recorded.get("heads")
    if mine is None:
        note = Note(
            "Your multi_head_attend() did not return one finite attention matrix per head for "
            f"this example (shape {worked.A.shape}), so there is nothing to draw yet; the "
            "multi_head_attend checks below say why."
        )
        return Section(HEADING, INTRO, (note, *refs))
    mine = np.array(mine, dtype=float)
    items = []
    for h, ref in enumerate(refs):
        want = worked.A[h].round(ROUNDED)  # as the suite records the student's
        off = ~np.isclose(mine[h], want, rtol=tolerance.rtol, atol=tolerance.atol)
        note = (
            _differences(mine[h], off, worked.tokens) if off.any() else "It matches the reference."
        )
        items += [
            Matrix(
                f"Yours, head {h} ({HEAD_NAMES[h]})",
                mine[h],
                worked.tokens,
                worked.tokens,
                outline=off,
                caption=f"What your multi_head_attend() returned. {note}",
                alt=f"Your attention of head {h} ({HEAD_NAMES[h]}) on 'two plus three equals'",
                **AXES,
            ),
            ref,
        ]
    return Section(HEADING, INTRO, tuple(items))
