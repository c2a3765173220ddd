"""The masked assignment as the engine sees it: its functions, mistakes, worked example and hooks.

Everything specific to "scaled, masked, multi-head attention on 'two plus three equals'" that the
engine needs is named here; the other modules of this folder hold the details: example.py (the
worked example), cases.py (random and public cases), mistakes.py (the catalogue), honest.py
(correct solutions written otherwise) and heads.py (the feedback page's drawing).
"""

from __future__ import annotations

from pathlib import Path

from . import cases
from . import example as _example
from . import heads as _heads
from . import honest as _honest
from .mistakes import CATALOGUE as MISTAKES

FUNCTIONS = (
    "scaled_score",
    "causal_mask",
    "padding_mask",
    "masked_softmax",
    "split_heads",
    "merge_heads",
    "multi_head_attend",
)
TUPLE_NAMES = {"multi_head_attend": ("O", "A")}
CHAIN = "multi_head_attend"
ENDLESS = "masked_softmax"

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
    "mutant_inputs",
    "public_cases",
]


def example(reference):
    """The 'two plus three equals' example, computed with `reference`."""
    return _example.build(reference)


def public_cases(reference, worked):
    return cases.public(worked, reference)


# Answers the quiz computes per student: (input names, function of the reference and the inputs).
QUIZ_COMPUTE = {
    "scaled": (
        ("q", "k"),
        lambda ref, q, k: ref.scaled_score(q[None, :], k[None, :])[0, 0],
    ),
    "third_token_causal": (  # the third of these tokens' keys, under a causal mask
        ("scores",),
        lambda ref, scores: ref.masked_softmax(scores, ref.causal_mask(scores.shape[0])[2]),
    ),
}

# Correct solutions written differently from the reference (honest.py): the suites must not care how.
HONEST_VARIANTS = _honest.VARIANTS

NOTEBOOK_SNIPPETS = {
    name: Path(__file__).with_name(f"{name}_cell.py").read_text(encoding="utf-8")
    for name in ("spread", "heads")
}

# What the synthetic class's mistaken students answer: all the heads' width as one head's.
SYNTHETIC_QUIZ_MISTAKE = "head-width: 512"

feedback_section = _heads.feedback_section


def mutant_inputs(rng):
    """Random inputs per function for `qkv validate --mutants` to tell equivalent mutants apart."""
    return {
        "scaled_score": cases.head_queries_keys(rng),
        "causal_mask": (cases.size(rng),),
        "padding_mask": cases.lengths(rng),
        "masked_softmax": cases.large_masked(rng),
        "split_heads": cases.projection_heads(rng),
        "merge_heads": cases.heads(rng),
        "multi_head_attend": cases.attention(rng, mask="random"),
    }
