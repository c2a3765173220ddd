"""The misconception catalogue of the masked assignment: every known wrong variant, in one place.

Each entry is a wrong implementation of one function with the one sentence that tells a student
what to fix. The engine recognises a failing output by running these on the same inputs, and
`qkv validate` splices each into the reference to prove the hidden suites catch it.
"""

from qkv.content.mistakes import Mistake


def _m(id_: str, part: str, message: str, source: str, **kw) -> Mistake:
    return Mistake(id_, part, message, source, **kw)


SCALED_SCORE = (
    _m(
        "scaled_score_unscaled",
        "scaled_score",
        "the scores are raw dot products: divide them by sqrt(d_k), the width of a Query.",
        """
        def scaled_score(Q, K):
            return Q @ np.swapaxes(K, -1, -2)
        """,
    ),
    _m(
        "scaled_score_by_dk",
        "scaled_score",
        "the scores are divided by d_k: divide by sqrt(d_k), which keeps their spread near 1.",
        """
        def scaled_score(Q, K):
            return Q @ np.swapaxes(K, -1, -2) / Q.shape[-1]
        """,
    ),
    _m(
        "scaled_score_multiplied",
        "scaled_score",
        "the scores are multiplied by sqrt(d_k): divide by it, so that wider Keys do not spread "
        "the scores out.",
        """
        def scaled_score(Q, K):
            return Q @ np.swapaxes(K, -1, -2) * np.sqrt(Q.shape[-1])
        """,
    ),
    _m(
        "scaled_score_by_keys",
        "scaled_score",
        "the scores are divided by the square root of the number of keys: d_k is the width of a "
        "Query or Key, Q.shape[-1].",
        """
        def scaled_score(Q, K):
            return Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-2])
        """,
    ),
    _m(
        "scaled_score_transposed",
        "scaled_score",
        "the scores are transposed (K Q^T): row i must hold query i against every key.",
        """
        def scaled_score(Q, K):
            return K @ np.swapaxes(Q, -1, -2) / np.sqrt(Q.shape[-1])
        """,
    ),
    _m(
        "scaled_score_dot_T",
        "scaled_score",
        "K.T reverses every axis of a (heads, n_k, d_k) array: swap only the last two, "
        "np.swapaxes(K, -1, -2) (or K.transpose(0, 2, 1)).",
        """
        def scaled_score(Q, K):
            return Q @ K.T / np.sqrt(Q.shape[-1])
        """,
    ),
)

CAUSAL_MASK = (
    _m(
        "causal_inverted",
        "causal_mask",
        "the mask is inverted: True must mark what a token may see (itself and the tokens before "
        "it), not what it must not.",
        """
        def causal_mask(n):
            return np.triu(np.ones((n, n), dtype=bool), k=1)
        """,
    ),
    _m(
        "causal_no_diagonal",
        "causal_mask",
        "the diagonal is False: a token may attend to itself, so keep j <= i, not j < i.",
        """
        def causal_mask(n):
            return np.tril(np.ones((n, n), dtype=bool), k=-1)
        """,
    ),
    _m(
        "causal_upper",
        "causal_mask",
        "the mask is the upper triangle: row i is the token that attends, so it may see columns "
        "j <= i, below the diagonal (np.tril).",
        """
        def causal_mask(n):
            return np.triu(np.ones((n, n), dtype=bool))
        """,
    ),
    _m(
        "causal_all_true",
        "causal_mask",
        "nothing is hidden: a causal token must not see the tokens after it.",
        """
        def causal_mask(n):
            return np.ones((n, n), dtype=bool)
        """,
    ),
)

PADDING_MASK = (
    _m(
        "padding_keys_only",
        "padding_mask",
        "only the padding keys are hidden: a padding token must attend to nothing too, so hide "
        "its row as well as its column.",
        """
        def padding_mask(lengths, n):
            real = np.arange(n) < np.asarray(lengths)[:, None]
            return np.broadcast_to(real[:, None, :], (len(real), n, n)).copy()
        """,
    ),
    _m(
        "padding_queries_only",
        "padding_mask",
        "only the padding rows are hidden: no real token may attend to a padding token, so hide "
        "its column as well as its row.",
        """
        def padding_mask(lengths, n):
            real = np.arange(n) < np.asarray(lengths)[:, None]
            return np.broadcast_to(real[:, :, None], (len(real), n, n)).copy()
        """,
    ),
    _m(
        "padding_off_by_one",
        "padding_mask",
        "one padding token too many is kept: a sentence of length L has tokens 0 to L - 1, so "
        "keep j < L, not j <= L.",
        """
        def padding_mask(lengths, n):
            real = np.arange(n) <= np.asarray(lengths)[:, None]
            return real[:, :, None] & real[:, None, :]
        """,
    ),
    _m(
        "padding_inverted",
        "padding_mask",
        "the mask is inverted: True must mark the pairs of real tokens, which may attend.",
        """
        def padding_mask(lengths, n):
            real = np.arange(n) < np.asarray(lengths)[:, None]
            return ~(real[:, :, None] & real[:, None, :])
        """,
    ),
    _m(
        "padding_or",
        "padding_mask",
        "a pair is kept when either token is real: both must be, so combine them with &, not |.",
        """
        def padding_mask(lengths, n):
            real = np.arange(n) < np.asarray(lengths)[:, None]
            return real[:, :, None] | real[:, None, :]
        """,
    ),
    _m(
        "padding_tokens_only",
        "padding_mask",
        "this is the (batch, n) mask of real tokens: the attention mask is (batch, n, n), True "
        "where token i and token j are both real.",
        """
        def padding_mask(lengths, n):
            return np.arange(n) < np.asarray(lengths)[:, None]
        """,
    ),
)

MASKED_SOFTMAX = (
    _m(
        "softmax_mask_inverted",
        "masked_softmax",
        "the mask is used inverted: True keeps a key, so the weights go where mask is True.",
        """
        def masked_softmax(S, mask):
            kept = np.where(~mask, S, -np.inf)
            top = kept.max(axis=-1, keepdims=True)
            top[~np.isfinite(top)] = 0.0
            e = np.exp(kept - top)
            total = e.sum(axis=-1, keepdims=True)
            return e / np.where(total > 0, total, 1.0)
        """,
    ),
    _m(
        "softmax_max_over_all_keys",
        "masked_softmax",
        "each row is shifted by its largest score over every key, masked ones too: when a masked "
        "score is far above the kept ones their weights underflow to 0; shift by the largest kept "
        "score.",
        """
        def masked_softmax(S, mask):
            e = np.exp(S - S.max(axis=-1, keepdims=True)) * mask
            total = e.sum(axis=-1, keepdims=True)
            return e / np.where(total > 0, total, 1.0)
        """,
    ),
    _m(
        "softmax_mask_after",
        "masked_softmax",
        "the mask is applied after the softmax, so the kept weights no longer sum to 1: mask the "
        "scores (to -inf) before the softmax.",
        """
        def masked_softmax(S, mask):
            e = np.exp(S - S.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True) * mask
        """,
    ),
    _m(
        "softmax_renormalised_after",
        "masked_softmax",
        "the softmax is taken over every key, then masked and renormalised: when a masked-out "
        "score dominates its row the kept weights underflow to 0 / 0; mask the scores first.",
        """
        def masked_softmax(S, mask):
            e = np.exp(S - S.max(axis=-1, keepdims=True))
            p = e / e.sum(axis=-1, keepdims=True) * mask
            return p / p.sum(axis=-1, keepdims=True)
        """,
    ),
    _m(
        "softmax_fill_large_negative",
        "masked_softmax",
        "masked scores are set to a large negative number, not -inf: a row that keeps nothing "
        "then spreads its weight evenly instead of giving 0.",
        """
        def masked_softmax(S, mask):
            kept = np.where(mask, S, -1e9)
            e = np.exp(kept - kept.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        """,
        alternatives=(
            """
        def masked_softmax(S, mask):
            kept = np.where(mask, S, -1e4)
            e = np.exp(kept - kept.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        """,
            """
        def masked_softmax(S, mask):
            kept = S + (~mask) * -1e9
            e = np.exp(kept - kept.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        """,
        ),
    ),
    _m(
        "softmax_fill_zero",
        "masked_softmax",
        "masked scores are set to 0 (or multiplied by the mask), which still leaks weight to them: "
        "set them to -inf so that exp() makes them exactly 0.",
        """
        def masked_softmax(S, mask):
            kept = S * mask
            e = np.exp(kept - kept.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        """,
    ),
    _m(
        "softmax_no_shift",
        "masked_softmax",
        "exp() of scores near 1000 overflows: subtract each row's largest kept score first.",
        """
        def masked_softmax(S, mask):
            e = np.where(mask, np.exp(S), 0.0)
            total = e.sum(axis=-1, keepdims=True)
            return e / np.where(total > 0, total, 1.0)
        """,
    ),
    _m(
        "softmax_wrong_axis",
        "masked_softmax",
        "the weights are normalised down the columns: each query's row (the last axis) must sum "
        "to 1.",
        """
        def masked_softmax(S, mask):
            kept = np.where(mask, S, -np.inf)
            top = kept.max(axis=-2, keepdims=True)
            top[~np.isfinite(top)] = 0.0
            e = np.exp(kept - top)
            total = e.sum(axis=-2, keepdims=True)
            return e / np.where(total > 0, total, 1.0)
        """,
    ),
    _m(
        "softmax_mask_added",
        "masked_softmax",
        "the boolean mask is added to the scores (True counts as 1): a mask selects keys, it is "
        "not a bonus; set the masked-out scores to -inf.",
        """
        def masked_softmax(S, mask):
            kept = S + mask
            e = np.exp(kept - kept.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)
        """,
    ),
    _m(
        "softmax_in_place",
        "masked_softmax",
        "S was changed in place (S[~mask] = -np.inf on the scores you were given): work on a copy, "
        "S.copy(), or use np.where.",
        """
        def masked_softmax(S, mask):
            S[~mask] = -np.inf
            top = S.max(axis=-1, keepdims=True)
            top[~np.isfinite(top)] = 0.0
            e = np.exp(S - top)
            total = e.sum(axis=-1, keepdims=True)
            return e / np.where(total > 0, total, 1.0)
        """,
        mutates_input=True,
    ),
)

SPLIT_HEADS = (
    _m(
        "split_no_transpose",
        "split_heads",
        "the heads are split without the transpose: reshape to (n, n_heads, d_head) first, then "
        "move the heads to the front with .transpose(1, 0, 2).",
        """
        def split_heads(X, n_heads):
            n, width = X.shape
            return X.reshape(n_heads, n, width // n_heads)
        """,
    ),
    _m(
        "split_interleaved",
        "split_heads",
        "each head takes every n_heads-th column: a head's columns are one contiguous block, so "
        "reshape to (n, n_heads, d_head), heads before d_head.",
        """
        def split_heads(X, n_heads):
            n, width = X.shape
            return X.reshape(n, width // n_heads, n_heads).transpose(2, 0, 1)
        """,
    ),
    _m(
        "split_tokens",
        "split_heads",
        "the tokens are split among the heads: every head sees every token, and the columns are "
        "what is split (axis 1).",
        """
        def split_heads(X, n_heads):
            return np.array(np.split(X, n_heads, axis=0))
        """,
    ),
    _m(
        "split_wrong_axes",
        "split_heads",
        "the axes come out as (n_heads, d_head, n): each head's block must be (n, d_head), one "
        "row per token; use .transpose(1, 0, 2).",
        """
        def split_heads(X, n_heads):
            n, width = X.shape
            return X.reshape(n, n_heads, width // n_heads).transpose(1, 2, 0)
        """,
    ),
)

MERGE_HEADS = (
    _m(
        "merge_no_transpose",
        "merge_heads",
        "the heads are merged without the transpose: move the tokens to the front, "
        ".transpose(1, 0, 2), before reshaping to (n, n_heads * d_head).",
        """
        def merge_heads(H):
            n_heads, n, d_head = H.shape
            return H.reshape(n, n_heads * d_head)
        """,
    ),
    _m(
        "merge_reversed",
        "merge_heads",
        "the heads are concatenated in the wrong order: head 0's columns come first.",
        """
        def merge_heads(H):
            n_heads, n, d_head = H.shape
            return H[::-1].transpose(1, 0, 2).reshape(n, n_heads * d_head)
        """,
    ),
    _m(
        "merge_interleaved",
        "merge_heads",
        "the heads' columns are interleaved: each head's d_head columns stay together, one "
        "head after the other, so transpose to (n, n_heads, d_head).",
        """
        def merge_heads(H):
            n_heads, n, d_head = H.shape
            return H.transpose(1, 2, 0).reshape(n, n_heads * d_head)
        """,
    ),
    _m(
        "merge_stacked",
        "merge_heads",
        "the heads are stacked below each other: concatenate them side by side (axis=1 of each "
        "head's (n, d_head) block), one row per token.",
        """
        def merge_heads(H):
            return np.concatenate(list(H), axis=0)
        """,
    ),
    _m(
        "merge_summed",
        "merge_heads",
        "the heads are added (or averaged), not concatenated: each keeps its own columns, "
        "n_heads * d_head in all.",
        """
        def merge_heads(H):
            return H.sum(axis=0)
        """,
        alternatives=(
            """
        def merge_heads(H):
            return H.mean(axis=0)
        """,
        ),
    ),
)

MULTI_HEAD_ATTEND = (
    _m(
        "attend_no_output_projection",
        "multi_head_attend",
        "W_o is forgotten: the concatenated heads are multiplied by the output projection W_o.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
            S = scaled_score(Q, K)
            if mask is None:
                mask = np.ones(S.shape[-2:], dtype=bool)
            A = masked_softmax(S, np.broadcast_to(mask, S.shape))
            return merge_heads(A @ V), A
        """,
    ),
    _m(
        "attend_mask_ignored",
        "multi_head_attend",
        "the mask is not used: pass it to masked_softmax, so that no token sees what it must not.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
            S = scaled_score(Q, K)
            A = masked_softmax(S, np.ones(S.shape, dtype=bool))
            return merge_heads(A @ V) @ W_o, A
        """,
    ),
    _m(
        "attend_unscaled",
        "multi_head_attend",
        "the heads' scores are raw dot products: score them with scaled_score (over sqrt(d_k)).",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
            S = Q @ np.swapaxes(K, -1, -2)
            if mask is None:
                mask = np.ones(S.shape[-2:], dtype=bool)
            A = masked_softmax(S, np.broadcast_to(mask, S.shape))
            return merge_heads(A @ V) @ W_o, A
        """,
    ),
    _m(
        "attend_scaled_by_width",
        "multi_head_attend",
        "the scores are scaled by the square root of all heads' width: each head's d_k is its own "
        "slice's width, W_q.shape[1] / n_heads.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
            S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(W_q.shape[1])
            if mask is None:
                mask = np.ones(S.shape[-2:], dtype=bool)
            A = masked_softmax(S, np.broadcast_to(mask, S.shape))
            return merge_heads(A @ V) @ W_o, A
        """,
    ),
    _m(
        "attend_mask_after_softmax",
        "multi_head_attend",
        "the mask is applied to the weights after an unmasked softmax: the rows no longer sum to "
        "1; give the mask to masked_softmax.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
            S = scaled_score(Q, K)
            if mask is None:
                mask = np.ones(S.shape[-2:], dtype=bool)
            A = masked_softmax(S, np.ones(S.shape, dtype=bool)) * mask
            return merge_heads(A @ V) @ W_o, A
        """,
    ),
    _m(
        "attend_one_head",
        "multi_head_attend",
        "the projections are not split into heads: one head over the whole width is not "
        "n_heads heads; split Q, K and V with split_heads.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = X @ W_q, X @ W_k, X @ W_v
            S = scaled_score(Q, K)
            if mask is None:
                mask = np.ones(S.shape, dtype=bool)
            A = masked_softmax(S, mask)
            return A @ V @ W_o, A
        """,
    ),
    _m(
        "attend_returns_scores",
        "multi_head_attend",
        "the second item returned is the scores: return each head's attention weights, A.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
            S = scaled_score(Q, K)
            if mask is None:
                mask = np.ones(S.shape[-2:], dtype=bool)
            A = masked_softmax(S, np.broadcast_to(mask, S.shape))
            return merge_heads(A @ V) @ W_o, S
        """,
    ),
    _m(
        "attend_keys_from_queries",
        "multi_head_attend",
        "K is projected with W_q: each of Q, K and V has its own matrix, and K uses W_k.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_q, W_v))
            S = scaled_score(Q, K)
            if mask is None:
                mask = np.ones(S.shape[-2:], dtype=bool)
            A = masked_softmax(S, np.broadcast_to(mask, S.shape))
            return merge_heads(A @ V) @ W_o, A
        """,
    ),
    _m(
        "attend_in_place",
        "multi_head_attend",
        "X was changed in place: leave the embeddings as they were and work on new arrays.",
        """
        def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
            X -= X.mean(axis=0)  # centred in place
            Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
            S = scaled_score(Q, K)
            if mask is None:
                mask = np.ones(S.shape[-2:], dtype=bool)
            A = masked_softmax(S, np.broadcast_to(mask, S.shape))
            return merge_heads(A @ V) @ W_o, A
        """,
        mutates_input=True,
    ),
)

CATALOGUE: tuple[Mistake, ...] = (
    SCALED_SCORE
    + CAUSAL_MASK
    + PADDING_MASK
    + MASKED_SOFTMAX
    + SPLIT_HEADS
    + MERGE_HEADS
    + MULTI_HEAD_ATTEND
)
