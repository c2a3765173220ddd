"""The misconception catalogue of the attention assignment: every known wrong variant, in one place.

Each entry is a wrong implementation of one function with the one sentence that tells a student
what to fix. The engine recognises a failing output by running these on the same inputs, and
`qkv validate` splices each into the reference to prove the hidden suites catch it.
"""
from autograder.content.mistakes import Mistake

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
