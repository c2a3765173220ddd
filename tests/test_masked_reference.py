"""The masked assignment's reference against two independent implementations: naive loops and
torch (its softmax, scaled_dot_product_attention and nn.MultiheadAttention)."""

import math
import os

import numpy as np
import pytest

from course_content import COURSE
from qkv.content import loader


@pytest.fixture(scope="module")
def mref():
    return loader.load(COURSE, COURSE.assignment("masked")).reference


def torch_or_skip():
    """The optional cross-check (`pip install -e '.[crosscheck]'`); CI installs torch and requires it."""
    if os.environ.get("QKV_REQUIRE_TORCH"):
        import torch  # noqa: PLC0415 - a heavy optional extra

        return torch
    return pytest.importorskip("torch", reason="the optional cross-check: pip install -e '.[crosscheck]'")  # fmt: skip


def naive_softmax_row(scores, keep):
    """One row's weights over its kept keys, in loops; a row that keeps nothing is all 0."""
    kept = [s for s, k in zip(scores, keep) if k]
    if not kept:
        return [0.0] * len(scores)
    top = max(kept)
    e = [math.exp(s - top) if k else 0.0 for s, k in zip(scores, keep)]
    return [x / sum(e) for x in e]


def naive_multi_head(X, W_q, W_k, W_v, W_o, n_heads, mask):
    """Loops over heads, tokens and components; no matrix products, no numpy reductions."""
    n, d_model = X.shape
    d_k, d_v = W_q.shape[1] // n_heads, W_v.shape[1] // n_heads

    def proj(W, h, d):
        cols = range(h * d, (h + 1) * d)
        return [[sum(X[t][m] * W[m][c] for m in range(d_model)) for c in cols] for t in range(n)]

    A, heads = [], []
    for h in range(n_heads):
        Q, K, V = proj(W_q, h, d_k), proj(W_k, h, d_k), proj(W_v, h, d_v)
        S = [[sum(q * k for q, k in zip(Q[i], K[j])) / math.sqrt(d_k) for j in range(n)] for i in range(n)]  # fmt: skip
        A.append([naive_softmax_row(S[i], mask[i]) for i in range(n)])
        heads.append([[sum(A[h][i][j] * V[j][c] for j in range(n)) for c in range(d_v)] for i in range(n)])  # fmt: skip
    concat = [[x for h in range(n_heads) for x in heads[h][i]] for i in range(n)]
    O = [[sum(concat[i][m] * W_o[m][c] for m in range(len(W_o))) for c in range(W_o.shape[1])] for i in range(n)]  # fmt: skip
    return np.array(O), np.array(A)


def attention_inputs(seed, *, square=False):
    """(X, W_q, W_k, W_v, W_o, n_heads); square: d_model = d_out = n_heads * d_k = n_heads * d_v,
    the only shapes nn.MultiheadAttention takes."""
    rng = np.random.default_rng(seed)
    n, d_model, n_heads, d_k, d_v, d_out = (int(x) for x in 2 + rng.permutation(6))
    if square:
        d_v = d_k
        d_model = d_out = n_heads * d_k
    return (
        rng.normal(size=(n, d_model)),
        rng.normal(size=(d_model, n_heads * d_k)),
        rng.normal(size=(d_model, n_heads * d_k)),
        rng.normal(size=(d_model, n_heads * d_v)),
        rng.normal(size=(n_heads * d_v, d_out)),
        n_heads,
    )


def masks(mref, n, rng, *, empty_row=True):
    """The masks to cross-check: none, causal, and a random one (with a row that keeps nothing)."""
    keep = rng.random(size=(n, n)) < 0.6
    keep[np.arange(n), rng.integers(n, size=n)] = True
    if empty_row:
        keep[rng.integers(n)] = False
    return {"none": np.ones((n, n), bool), "causal": mref.causal_mask(n), "random": keep}


@pytest.mark.parametrize("seed", range(12))
def test_masked_reference_matches_naive_loops(mref, seed):
    X, W_q, W_k, W_v, W_o, n_heads = attention_inputs(seed)
    for name, mask in masks(mref, len(X), np.random.default_rng(seed)).items():
        O, A = naive_multi_head(X, W_q, W_k, W_v, W_o, n_heads, mask)
        O2, A2 = mref.multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask)
        np.testing.assert_allclose(A2, A, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(O2, O, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("seed", range(8))
def test_masked_softmax_matches_torch_softmax_over_minus_inf_except_on_empty_rows(mref, seed):
    torch = torch_or_skip()
    rng = np.random.default_rng(200 + seed)
    lengths, n = rng.integers(1, 6, size=4), 6
    lengths[0] = n
    S = 3.0 * rng.normal(size=(len(lengths), n, n))
    S[0, 0, 1] = 1000.0  # a score far above the others of its row
    mask = mref.padding_mask(lengths, n)  # (batch, n, n): padding rows keep nothing
    expected = torch.softmax(
        torch.from_numpy(S).masked_fill(~torch.from_numpy(mask), -torch.inf), -1
    )
    mine = mref.masked_softmax(S, mask)
    empty = ~mask.any(axis=-1)
    assert empty.any()
    # torch's softmax of a row of -inf only is 0 / 0 = nan; the reference gives such a row 0s
    assert torch.isnan(expected[torch.from_numpy(empty)]).all()
    np.testing.assert_array_equal(mine[empty], 0.0)
    np.testing.assert_allclose(mine[~empty], expected.numpy()[~empty], atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_scaled_masked_attention_matches_torch_sdpa(mref, seed):
    """sdpa's boolean attn_mask is True where a query takes part, as the reference's masks are,
    and its default scale is 1/sqrt(d_k). The pinned torch's sdpa gives a row that keeps nothing
    an output of 0, as the reference's zero weights do, where torch.softmax gives nan."""
    torch = torch_or_skip()
    sdpa = torch.nn.functional.scaled_dot_product_attention
    rng = np.random.default_rng(300 + seed)
    h, n_q, n_k, d_k, d_v = (int(x) for x in 2 + rng.permutation(5))
    Q, K, V = (rng.normal(size=(h, m, d)) for m, d in ((n_q, d_k), (n_k, d_k), (n_k, d_v)))
    keep = rng.random(size=(h, n_q, n_k)) < 0.5
    keep[0, 0], keep[1, 1], keep[1, 0] = False, True, False  # empty, full and empty rows
    t = {k: torch.from_numpy(v) for k, v in {"Q": Q, "K": K, "V": V, "keep": keep}.items()}
    A = mref.masked_softmax(mref.scaled_score(Q, K), keep)
    np.testing.assert_allclose(A @ V, sdpa(t["Q"], t["K"], t["V"], attn_mask=t["keep"]).numpy(), atol=1e-12)  # fmt: skip
    # the causal mask against sdpa's own, and a padding mask over a batch of sentences
    n = n_k
    A = mref.masked_softmax(mref.scaled_score(K, K), np.broadcast_to(mref.causal_mask(n), (h, n, n)))  # fmt: skip
    np.testing.assert_allclose(A @ V, sdpa(t["K"], t["K"], t["V"], is_causal=True).numpy(), atol=1e-12)  # fmt: skip
    pad = mref.padding_mask(np.array([n, 1, *rng.integers(1, n + 1, size=h - 2)]), n)
    A = mref.masked_softmax(mref.scaled_score(K, K), pad)
    np.testing.assert_allclose(A @ V, sdpa(t["K"], t["K"], t["V"], attn_mask=torch.from_numpy(pad)).numpy(), atol=1e-12)  # fmt: skip


@pytest.mark.parametrize("seed", range(8))
def test_multi_head_attend_matches_torch_multihead_attention(mref, seed):
    """The same weights in torch's (out, in) layout, without biases; MultiheadAttention's boolean
    attn_mask is True where a query must NOT attend, the opposite of the reference's masks."""
    torch = torch_or_skip()
    X, W_q, W_k, W_v, W_o, n_heads = attention_inputs(400 + seed, square=True)
    n, d_model = X.shape
    mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=False, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.vstack([W_q.T, W_k.T, W_v.T])))
        mha.out_proj.weight.copy_(torch.from_numpy(W_o.T))
    x = torch.from_numpy(X)
    for name, mask in masks(mref, n, np.random.default_rng(seed), empty_row=False).items():
        with torch.no_grad():
            out, weights = mha(x, x, x, attn_mask=torch.from_numpy(~mask), average_attn_weights=False)  # fmt: skip
        O, A = mref.multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask)
        np.testing.assert_allclose(A, weights.numpy(), atol=1e-12, err_msg=name)
        np.testing.assert_allclose(O, out.numpy(), atol=1e-12, err_msg=name)
