"""Wrong implementations the catalogue does not hold as written: each is the same misconception
as a catalogued mistake written another way, or one only a property check or the precision message
can name. Every one must lose points in its own part and be named there.

id -> (part, {function: source}, what its feedback must say: a catalogue id or a phrase)
"""

HELD_OUT = {
    "min_shift_np": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    z = S - np.min(S, axis=-1)[..., None]
    return np.exp(z) / np.exp(z).sum(axis=-1)[..., None]
"""
        },
        "softmax_min_shift",
    ),
    "mean_shift_np": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    e = np.exp(S - np.mean(S, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)
"""
        },
        "softmax_mean_shift",
    ),
    "first_shift_index": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    e = np.exp(S - S[..., [0]])
    return e / e.sum(-1, keepdims=True)
"""
        },
        "softmax_first_shift",
    ),
    "global_max_np": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    e = np.exp(S - np.max(S))
    return e / np.sum(e, axis=-1, keepdims=True)
"""
        },
        "softmax_global_max",
    ),
    "ratio_no_exp": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    total = np.sum(S, axis=-1, keepdims=True)
    return S / total
"""
        },
        "softmax_no_exp",
    ),
    "hard_where": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    return np.where(S == np.max(S, axis=-1, keepdims=True), 1.0, 0.0)
"""
        },
        "softmax_argmax",
    ),
    "sigmoid_ratio": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    return np.exp(S) / (1.0 + np.exp(S))
"""
        },
        "softmax_sigmoid",
    ),
    "temperature_three": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    z = (S - S.max(axis=-1, keepdims=True)) / 3.0
    return np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
"""
        },
        "softmax_temperature",
    ),
    "log_softmax_lse": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    m = np.max(S, axis=-1, keepdims=True)
    return S - m - np.log(np.sum(np.exp(S - m), axis=-1, keepdims=True))
"""
        },
        "softmax_log",
    ),
    "axis1_sum": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    e = np.exp(S - np.max(S, axis=-1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)
"""
        },
        "softmax_axis1",
    ),
    "clip_twenty": (
        "softmax",
        {
            "softmax": """
def softmax(S):
    S = np.clip(S, -20.0, 20.0)
    return np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True)
"""
        },
        "softmax_clipped",
    ),
    "matmul_no_transpose": (
        "score",
        {
            "score": """
def score(Q, K):
    return np.matmul(Q, K)
"""
        },
        "score_no_transpose",
    ),
    "dot_over_dk": (
        "score",
        {
            "score": """
def score(Q, K):
    return np.dot(Q, K.T) / K.shape[1]
"""
        },
        "score_scaled_dk",
    ),
    "key_from_wq_dot": (
        "project",
        {
            "project": """
def project(X, W_q, W_k, W_v):
    Q = X.dot(W_q)
    return Q, X.dot(W_q), X.dot(W_v)
"""
        },
        "project_key_from_wq",
    ),
    "qvk_order": (
        "project",
        {
            "project": """
def project(X, W_q, W_k, W_v):
    Q, K, V = np.dot(X, W_q), np.dot(X, W_k), np.dot(X, W_v)
    return Q, V, K
"""
        },
        "project_order_qvk",
    ),
    "doubles_x_in_place": (
        "project",
        {
            "project": """
def project(X, W_q, W_k, W_v):
    X *= 2.0
    return X @ W_q / 2, X @ W_k / 2, X @ W_v / 2
"""
        },
        "project_in_place",
    ),
    "float32_chain": (
        "project",
        {
            "project": """
def project(X, W_q, W_k, W_v):
    X32 = X.astype(np.float32)
    return tuple(X32 @ W.astype(np.float32) for W in (W_q, W_k, W_v))
"""
        },
        "float32 arithmetic",
    ),
    "renormalises_a_in_place": (
        "aggregate",
        {
            "aggregate": """
def aggregate(A, V):
    A *= 1.0 / A.sum(axis=1, keepdims=True)
    return np.dot(A, V)
"""
        },
        "aggregate_in_place",
    ),
    "aggregate_transpose_call": (
        "attend",
        {
            "attend": """
def attend(X, W_q, W_k, W_v):
    Q, K, V = project(X, W_q, W_k, W_v)
    A = softmax(score(Q, K))
    return aggregate(np.transpose(A), V), A
"""
        },
        "attend_aggregate_transposed",
    ),
    "returns_o_and_s": (
        "attend",
        {
            "attend": """
def attend(X, W_q, W_k, W_v):
    Q, K, V = project(X, W_q, W_k, W_v)
    S = score(Q, K)
    A = softmax(S)
    O = aggregate(A, V)
    return O, S
"""
        },
        "attend_returns_scores",
    ),
    "residual_after": (
        "attend",
        {
            "attend": """
def attend(X, W_q, W_k, W_v):
    Q, K, V = project(X, W_q, W_k, W_v)
    A = softmax(score(Q, K))
    O = aggregate(A, V)
    return O + X, A
"""
        },
        "attend_residual",
    ),
    "over_key_width_in_attend": (
        "attend",
        {
            "attend": """
def attend(X, W_q, W_k, W_v):
    Q, K, V = project(X, W_q, W_k, W_v)
    A = softmax(score(Q, K) / W_q.shape[1])
    return aggregate(A, V), A
"""
        },
        "attend_scaled_dk",
    ),
    "causal_mask_by_index": (
        "attend",
        {
            "attend": """
def attend(X, W_q, W_k, W_v):
    Q, K, V = project(X, W_q, W_k, W_v)
    S = score(Q, K)
    n = S.shape[0]
    S[np.triu_indices(n, k=1)] = -1e9  # no peeking ahead, as in a decoder
    A = softmax(S)
    return aggregate(A, V), A
"""
        },
        "attend_causal_mask",
    ),
}
