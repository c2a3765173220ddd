"""The misconception catalogue of the attention assignment: every known wrong variant, in one place.

Each entry is a wrong implementation of one function (written out, or as an edit of the
reference's own function) with the one sentence that tells a student what to fix. The engine recognises a failing output by running these on the same inputs, and
`qkv validate` splices each into the reference to prove the hidden suites catch it.
"""

from qkv.content.mistakes import Mistake

CATALOGUE: tuple[Mistake, ...] = (
    Mistake(
        "project_swapped_qk",
        "project",
        "Q and K are swapped: the Query comes from X @ W_q and the Key from X @ W_k.",
        edit=(("return Q, K, V", "return K, Q, V"),),
    ),
    Mistake(
        "project_transposed",
        "project",
        "Q, K and V come out transposed: multiply X @ W (tokens stay on the rows), not W.T @ X.T.",
        """
        def project(X, W_q, W_k, W_v):
            return W_q.T @ X.T, W_k.T @ X.T, W_v.T @ X.T
        """,
    ),
    Mistake(
        "project_value_from_wk",
        "project",
        "V is projected with W_k: each of Q, K and V has its own matrix, and V uses W_v.",
        edit=(("V = X @ W_v", "V = X @ W_k"),),
    ),
    Mistake(
        "project_key_from_wq",
        "project",
        "K is projected with W_q, so every Key equals its Query: K comes from X @ W_k.",
        edit=(("K = X @ W_k", "K = X @ W_q"),),
    ),
    Mistake(
        "project_order_qvk",
        "project",
        "the tuple is in the wrong order: return (Q, K, V), Queries first, then Keys, then Values.",
        edit=(("return Q, K, V", "return Q, V, K"),),
    ),
    Mistake(
        "project_in_place",
        "project",
        "X was changed in place (X /= ... or X -= ...): leave the embeddings as they were and work on new arrays.",
        """
        def project(X, W_q, W_k, W_v):
            X /= np.linalg.norm(X, axis=-1, keepdims=True)
            return X @ W_q, X @ W_k, X @ W_v
        """,
        mutates_input=True,
    ),
    Mistake(
        "score_transposed",
        "score",
        "the scores are transposed (K Q^T): row i must hold query i against every key, so compute Q @ K.T.",
        edit=(("Q @ K.T", "K @ Q.T"),),
    ),
    Mistake(
        "score_scaled",
        "score",
        "the scores are divided by sqrt(d_k): this exercise asks for raw dot products, without the scaling.",
        edit=(("Q @ K.T", "Q @ K.T / np.sqrt(Q.shape[-1])"),),
    ),
    Mistake(
        "score_no_transpose",
        "score",
        "Q @ K multiplies each Query with the columns of K, not with the Keys: transpose K, S = Q @ K.T.",
        edit=(("Q @ K.T", "Q @ K"),),
        alternatives=("np.dot(Q, K)",),
    ),
    Mistake(
        "score_scaled_dk",
        "score",
        "the scores are divided by d_k: this exercise asks for raw dot products (and the usual scaling would be sqrt(d_k), not d_k).",
        edit=(("Q @ K.T", "Q @ K.T / Q.shape[-1]"),),
    ),
    Mistake(
        "score_cosine",
        "score",
        "the Queries and Keys are normalised to length 1 (cosine similarity): the score is the raw dot product, so a longer vector scores more.",
        """
        def score(Q, K):
            Qn = Q / np.linalg.norm(Q, axis=-1, keepdims=True)
            Kn = K / np.linalg.norm(K, axis=-1, keepdims=True)
            return Qn @ Kn.T
        """,
    ),
    Mistake(
        "score_distance",
        "score",
        "the scores are (negative squared) distances between Query and Key: attention scores are dot products, Q @ K.T.",
        """
        def score(Q, K):
            return -((Q[:, None, :] - K[None, :, :]) ** 2).sum(axis=-1)
        """,
    ),
    Mistake(
        "score_in_place",
        "score",
        "Q (or K) was changed in place, e.g. Q /= ...: compute the scores into a new array and leave the Queries and Keys as they were.",
        """
        def score(Q, K):
            Q /= np.sqrt(Q.shape[-1])
            return Q @ K.T
        """,
        mutates_input=True,
    ),
    Mistake(
        "softmax_axis0",
        "softmax",
        "columns sum to 1 but rows do not: normalise along the last axis (axis=-1), one row per query.",
        edit=(("S.max(axis=-1", "S.max(axis=0"), ("e.sum(axis=-1", "e.sum(axis=0")),
    ),
    Mistake(
        "softmax_global",
        "softmax",
        "the whole matrix sums to 1 instead of each row: normalise each row on its own (axis=-1, keepdims=True).",
        edit=(
            ("S.max(axis=-1, keepdims=True)", "S.max()"),
            ("e.sum(axis=-1, keepdims=True)", "e.sum()"),
        ),
    ),
    Mistake(
        "softmax_no_max",
        "softmax",
        "exp() overflows to inf/nan for large scores: subtract each row's maximum before exp() (it does not change the result).",
        edit=(("S - S.max(axis=-1, keepdims=True)", "S"),),
    ),
    Mistake(
        "softmax_no_keepdims",
        "softmax",
        "the row maxima or sums broadcast along the wrong axis: keep the reduced axis with keepdims=True.",
        edit=(
            ("S.max(axis=-1, keepdims=True)", "S.max(axis=-1)"),
            ("e.sum(axis=-1, keepdims=True)", "e.sum(axis=-1)"),
        ),
    ),
    Mistake(
        "softmax_uniform",
        "softmax",
        "every weight is the same (1/n): the scores are ignored; the weights must be exp(score) over the row's sum of exp.",
        """
        def softmax(S):
            return np.ones_like(S) / S.shape[-1]
        """,
    ),
    Mistake(
        "softmax_in_place",
        "softmax",
        "the scores you were given were overwritten: compute into a new array (S - m, not S -= m) so callers keep their input.",
        """
        def softmax(S):
            S -= S.max(axis=-1, keepdims=True)
            np.exp(S, out=S)
            S /= S.sum(axis=-1, keepdims=True)
            return S.copy()
        """,
        mutates_input=True,
    ),
    Mistake(
        "softmax_min_shift",
        "softmax",
        "each row's minimum is subtracted before exp(): the largest score then overflows; subtract each row's maximum, so the largest exponent is exp(0) = 1.",
        edit=(("S.max(", "S.min("),),
    ),
    Mistake(
        "softmax_mean_shift",
        "softmax",
        "each row's mean is subtracted before exp(): scores far above the mean still overflow; subtract each row's maximum instead.",
        edit=(("S.max(", "S.mean("),),
    ),
    Mistake(
        "softmax_first_shift",
        "softmax",
        "each row's first score is subtracted before exp(): a larger score later in the row still overflows; subtract each row's maximum instead.",
        edit=(("S.max(axis=-1, keepdims=True)", "S[..., :1]"),),
    ),
    Mistake(
        "softmax_global_max",
        "softmax",
        "the maximum of the whole matrix is subtracted, not each row's own: a row far below it underflows to 0/0; use S.max(axis=-1, keepdims=True).",
        edit=(("S.max(axis=-1, keepdims=True)", "S.max()"),),
    ),
    Mistake(
        "softmax_no_exp",
        "softmax",
        "the scores are divided by their row's sum without exp(): softmax exponentiates first, exp(s_j) / sum_k exp(s_k), so weights stay positive.",
        """
        def softmax(S):
            return S / S.sum(axis=-1, keepdims=True)
        """,
    ),
    Mistake(
        "softmax_unnormalised",
        "softmax",
        "the exponentials are not divided by their row's sum, so rows do not sum to 1: divide by e.sum(axis=-1, keepdims=True).",
        edit=(("e / e.sum(axis=-1, keepdims=True)", "e"),),
    ),
    Mistake(
        "softmax_argmax",
        "softmax",
        "all the weight goes to the highest score (a one-hot argmax, 'hard' attention): softmax gives every score some weight, exp(s_j) / sum_k exp(s_k).",
        """
        def softmax(S):
            return (S == S.max(axis=-1, keepdims=True)).astype(float)
        """,
        alternatives=(
            """
        def softmax(S):
            return np.eye(S.shape[-1])[np.argmax(S, axis=-1)]
        """,
        ),
    ),
    Mistake(
        "softmax_log",
        "softmax",
        "this is log-softmax (log of the weights, all negative): return the weights themselves, exp(s_j - max) / sum_k exp(s_k - max).",
        """
        def softmax(S):
            z = S - S.max(axis=-1, keepdims=True)
            return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        """,
    ),
    Mistake(
        "softmax_sigmoid",
        "softmax",
        "each score went through a sigmoid on its own, so rows do not sum to 1: softmax normalises the exponentials over the whole row.",
        """
        def softmax(S):
            return 1 / (1 + np.exp(-S))
        """,
    ),
    Mistake(
        "softmax_temperature",
        "softmax",
        "the scores are divided (or multiplied) by a temperature before exp(): this softmax has none; use exp(s_j - max) as it is.",
        edit=(
            (
                "shifted = S - S.max(axis=-1, keepdims=True)",
                "z = S / 2\n    shifted = z - z.max(axis=-1, keepdims=True)",
            ),
        ),
        alternatives=tuple(
            f"z = S * {c}\n    shifted = z - z.max(axis=-1, keepdims=True)"
            for c in (0.1, 0.2, 0.25, 1 / 3, 2, 3, 4, 5, 10)
        ),
    ),
    Mistake(
        "softmax_axis1",
        "softmax",
        "axis=1 only exists for a 2-D matrix: softmax must also take one 1-D row, so use the last axis, axis=-1.",
        edit=(("S.max(axis=-1", "S.max(axis=1"), ("e.sum(axis=-1", "e.sum(axis=1")),
    ),
    Mistake(
        "softmax_clipped",
        "softmax",
        "the scores are clipped to avoid overflow, which flattens large scores into equal ones: subtract each row's maximum instead (it changes nothing else).",
        """
        def softmax(S):
            e = np.exp(np.clip(S, -10, 10))
            return e / e.sum(axis=-1, keepdims=True)
        """,
        alternatives=tuple(
            f"""
        def softmax(S):
            e = np.exp(np.clip(S, -{c}, {c}))
            return e / e.sum(axis=-1, keepdims=True)
        """
            for c in (1, 5, 20, 50, 100, 500, 700)
        ),
    ),
    Mistake(
        "aggregate_transposed",
        "aggregate",
        "the weights are transposed: output i mixes the Values by row i of A, so compute A @ V, not A.T @ V.",
        """
        def aggregate(A, V):
            return A.T @ V
        """,
    ),
    Mistake(
        "aggregate_mean",
        "aggregate",
        "every output is the plain average of the Values: the weights are ignored; weight each Value by A[i, j].",
        """
        def aggregate(A, V):
            return np.repeat(V.mean(axis=0, keepdims=True), A.shape[0], axis=0)
        """,
    ),
    Mistake(
        "aggregate_values_summed",
        "aggregate",
        "every output is the plain sum of the Values: the weights are ignored; weight each Value by A[i, j].",
        """
        def aggregate(A, V):
            return np.repeat(V.sum(axis=0, keepdims=True), A.shape[0], axis=0)
        """,
    ),
    Mistake(
        "aggregate_in_place",
        "aggregate",
        "A was changed in place (e.g. renormalised with A /= ...): the weights are given summing to 1; leave them as they were.",
        """
        def aggregate(A, V):
            A /= A.sum(axis=-1, keepdims=True)
            return A @ V
        """,
        mutates_input=True,
    ),
    Mistake(
        "attend_returns_ao",
        "attend",
        "(A, O) is returned: return the outputs first, then the attention matrix, as (O, A).",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K))
            return A, aggregate(A, V)
        """,
    ),
    Mistake(
        "attend_no_softmax",
        "attend",
        "the raw scores are used as weights: apply softmax to the scores before mixing the Values.",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            S = score(Q, K)
            return aggregate(S, V), S
        """,
    ),
    Mistake(
        "attend_swapped_qk",
        "attend",
        "queries and keys are swapped in the chain, so A comes out transposed: score Q (from W_q) against K (from W_k).",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(K, Q))
            return aggregate(A, V), A
        """,
    ),
    Mistake(
        "attend_scaled",
        "attend",
        "the scores are divided by sqrt(d_k) inside attend: this exercise uses raw dot products.",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K) / np.sqrt(Q.shape[-1]))
            return aggregate(A, V), A
        """,
    ),
    Mistake(
        "attend_scaled_dk",
        "attend",
        "the scores are divided by d_k inside attend: this exercise uses raw dot products.",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K) / Q.shape[-1])
            return aggregate(A, V), A
        """,
    ),
    Mistake(
        "attend_aggregate_transposed",
        "attend",
        "aggregate gets A.T: output i must mix the Values by row i of A, so call aggregate(A, V).",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K))
            return aggregate(A.T, V), A
        """,
    ),
    Mistake(
        "attend_returns_scores",
        "attend",
        "the raw scores S are returned where the attention matrix belongs: return (O, A) with A = softmax(S).",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            S = score(Q, K)
            return aggregate(softmax(S), V), S
        """,
    ),
    Mistake(
        "attend_residual",
        "attend",
        "X is added to the output (a residual connection): attend returns the attention output alone, O = A V; residuals belong to the layer around it.",
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K))
            return X + aggregate(A, V), A
        """,
        alternatives=(
            """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K))
            return V + aggregate(A, V), A
        """,
        ),
    ),
    Mistake(
        "attend_causal_mask",
        "attend",
        'a causal mask hides the later tokens from each query: this attention is bidirectional, every token sees every other ("plus" must see "three"); leave the scores unmasked.',
        """
        def attend(X, W_q, W_k, W_v):
            Q, K, V = project(X, W_q, W_k, W_v)
            S = score(Q, K)
            S = np.where(np.tril(np.ones_like(S)) > 0, S, -np.inf)
            A = softmax(S)
            return aggregate(A, V), A
        """,
    ),
    Mistake(
        "attend_in_place",
        "attend",
        "X (or a weight matrix) was changed in place inside attend: leave every input as it was and work on new arrays.",
        """
        def attend(X, W_q, W_k, W_v):
            X -= X.mean(axis=0)
            Q, K, V = project(X, W_q, W_k, W_v)
            A = softmax(score(Q, K))
            return aggregate(A, V), A
        """,
        mutates_input=True,
    ),
)
