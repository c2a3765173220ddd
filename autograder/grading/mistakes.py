"""The misconception catalogue: every known wrong variant, in one place.

Each entry is a wrong implementation of one function, written out as source. The grader runs it
(trusted code) on the same inputs as the student to recognise the mistake in a failing output;
`qkv validate` splices it into the reference to make a mutant submission that must lose points in
its part and be named in its feedback; release computes its outputs on the public cases so the
student's own checks can name it too.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from autograder.grading import reference as reference_mod


@dataclass(frozen=True)
class Mistake:
    id: str
    part: str  # the function the mistake lives in
    message: str  # one sentence a student can act on
    source: str  # the wrong implementation
    mutates_input: bool = False  # recognised by the input check rather than by the output

    @cached_property
    def _compiled(self):
        return compile(textwrap.dedent(self.source), f"<mistake {self.id}>", "exec")

    def function(self, reference):
        """The wrong function, with the other four functions taken from the reference."""
        namespace = {"np": np, **{f: getattr(reference, f) for f in reference_mod.FUNCTIONS}}
        exec(self._compiled, namespace)
        return namespace[self.part]

    def mutant_source(self, reference_source: str) -> str:
        """The reference file with this mistake spliced in: a submission for `qkv validate`."""
        return reference_mod.replace_function(reference_source, self.part, textwrap.dedent(self.source))


CATALOGUE: tuple[Mistake, ...] = (
    Mistake("project_swapped_qk", "project",
            "Q and K are swapped: the Query comes from X @ W_q and the Key from X @ W_k.", """
        def project(X, W_q, W_k, W_v):
            return X @ W_k, X @ W_q, X @ W_v
        """),
    Mistake("project_transposed", "project",
            "Q, K and V come out transposed: multiply X @ W (tokens stay on the rows), not W.T @ X.T.", """
        def project(X, W_q, W_k, W_v):
            return W_q.T @ X.T, W_k.T @ X.T, W_v.T @ X.T
        """),
    Mistake("project_value_from_wk", "project",
            "V is projected with W_k: each of Q, K and V has its own matrix, and V uses W_v.", """
        def project(X, W_q, W_k, W_v):
            return X @ W_q, X @ W_k, X @ W_k
        """),
    Mistake("score_transposed", "score",
            "the scores are transposed (K Q^T): row i must hold query i against every key, so compute Q @ K.T.", """
        def score(Q, K):
            return K @ Q.T
        """),
    Mistake("score_scaled", "score",
            "the scores are divided by sqrt(d_k): this exercise asks for raw dot products, without the scaling.", """
        def score(Q, K):
            return Q @ K.T / np.sqrt(Q.shape[-1])
        """),
    Mistake("softmax_axis0", "softmax",
            "columns sum to 1 but rows do not: normalise along the last axis (axis=-1), one row per query.", """
        def softmax(S):
            e = np.exp(S - S.max(axis=0, keepdims=True))
            return e / e.sum(axis=0, keepdims=True)
        """),
    Mistake("softmax_global", "softmax",
            "the whole matrix sums to 1 instead of each row: normalise each row on its own (axis=-1, keepdims=True).", """
        def softmax(S):
            e = np.exp(S - S.max())
            return e / e.sum()
        """),
    Mistake("softmax_no_max", "softmax",
            "exp() overflows to inf/nan for large scores: subtract each row's maximum before exp() (it does not change the result).", """
        def softmax(S):
            e = np.exp(S)
            return e / e.sum(axis=-1, keepdims=True)
        """),
    Mistake("softmax_no_keepdims", "softmax",
            "the row maxima or sums broadcast along the wrong axis: keep the reduced axis with keepdims=True.", """
        def softmax(S):
            e = np.exp(S - S.max(axis=-1))
            return e / e.sum(axis=-1)
        """),
    Mistake("softmax_uniform", "softmax",
            "every weight is the same (1/n): the scores are ignored; the weights must be exp(score) over the row's sum of exp.", """
        def softmax(S):
            return np.ones_like(S) / S.shape[-1]
        """),
    Mistake("softmax_in_place", "softmax",
            "the scores you were given were overwritten: compute into a new array (S - m, not S -= m) so callers keep their input.", """
        def softmax(S):
            S -= S.max(axis=-1, keepdims=True)
            np.exp(S, out=S)
            S /= S.sum(axis=-1, keepdims=True)
            return S.copy()
        """, mutates_input=True),
    Mistake("aggregate_transposed", "aggregate",
            "the weights are transposed: output i mixes the Values by row i of A, so compute A @ V, not A.T @ V.", """
        def aggregate(A, V):
            return A.T @ V
        """),
    Mistake("aggregate_mean", "aggregate",
            "every output is the plain average of the Values: the weights are ignored; weight each Value by A[i, j].", """
        def aggregate(A, V):
            return np.repeat(V.mean(axis=0, keepdims=True), A.shape[0], axis=0)
        """),
    Mistake("attend_returns_ao", "attend",
            "(A, O) is returned: return the outputs first, then the attention matrix, as (O, A).", """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K))
            return A, aggregate(A, V)
        """),
    Mistake("attend_no_softmax", "attend",
            "the raw scores are used as weights: apply softmax to the scores before mixing the Values.", """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            S = score(Q, K)
            return aggregate(S, V), S
        """),
    Mistake("attend_swapped_qk", "attend",
            "queries and keys are swapped in the chain, so A comes out transposed: score Q (from W_q) against K (from W_k).", """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(K, Q))
            return aggregate(A, V), A
        """),
    Mistake("attend_scaled", "attend",
            "the scores are divided by sqrt(d_k) inside attend: this exercise uses raw dot products.", """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K) / np.sqrt(Q.shape[-1]))
            return aggregate(A, V), A
        """),
)


GENERIC_MUTATION = ("the function changed an input array it was given: work on new arrays "
                    "and leave inputs as they were.")


def mutation_message(function: str) -> str:
    """What to tell a student whose function modified its inputs."""
    return next((m.message for m in for_part(function) if m.mutates_input), GENERIC_MUTATION)


CHAIN = "attend"  # the one function that calls the others


def chain_hint(failing: list[str]) -> str:
    """What to add to a failing attend() when some of the functions it calls fail too."""
    if not failing:
        return ""
    names = ", ".join(f"{f}()" for f in failing)
    return f"; attend() calls your own functions, and {names} {'fails' if len(failing) == 1 else 'fail'} on its own: fix that first."


def for_part(function: str) -> tuple[Mistake, ...]:
    return tuple(m for m in CATALOGUE if m.part == function)


def by_id(mistake_id: str) -> Mistake:
    for m in CATALOGUE:
        if m.id == mistake_id:
            return m
    raise KeyError(mistake_id)


def variants(reference, function: str, args) -> list[tuple[str, object]]:
    """(message, wrong output) for every output-visible mistake of `function` on these inputs.

    Mistakes that crash on these inputs (a shape that only fits square matrices, say) are left out.
    """
    out = []
    for m in for_part(function):
        if m.mutates_input:
            continue
        copies = [np.array(a, copy=True) for a in args]
        try:
            with np.errstate(all="ignore"):
                value = m.function(reference)(*copies)
        except Exception:  # a mistake that cannot run on these shapes simply does not match
            continue
        out.append((m.message, value))
    return out
