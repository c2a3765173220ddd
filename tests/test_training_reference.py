"""The training reference: its gradients against finite differences and its training from the seed."""

import importlib.util

import numpy as np
import pytest
from tests.conftest import ROOT

SEED = 20261129  # course.yaml's seed


@pytest.fixture(scope="module")
def tr():
    spec = importlib.util.spec_from_file_location(
        "training_reference", ROOT / "solutions/training/training.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def numeric_gradient(f, x, h=1e-6):
    """Central differences of the scalar f() with respect to every entry of x (changed in place, then restored)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + h
        up = f()
        x[i] = old - h
        down = f()
        x[i] = old
        grad[i] = (up - down) / (2 * h)
    return grad


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ndim", [1, 2])
def test_softmax_backward_matches_finite_differences(tr, seed, ndim):
    rng = np.random.default_rng(seed)
    shape = (
        (int(rng.integers(2, 7)),)
        if ndim == 1
        else tuple(int(s) for s in rng.choice(range(2, 8), 2, replace=False))
    )
    S, G = 2 * rng.normal(size=shape), rng.normal(size=shape)
    expected = numeric_gradient(lambda: np.sum(G * tr.softmax(S)), S)
    dS = tr.softmax_backward(tr.softmax(S), G)
    close(dS, expected)
    np.testing.assert_allclose(dS.sum(axis=-1), 0, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_score_and_aggregate_backward_match_finite_differences(tr, seed):
    rng = np.random.default_rng(seed)
    n_q, n_k, d_k, d_v = (int(s) for s in rng.choice(range(2, 8), 4, replace=False))
    Q, K, dS = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_q, n_k))
    dQ, dK = tr.score_backward(Q, K, dS)
    close(dQ, numeric_gradient(lambda: np.sum(dS * tr.score(Q, K)), Q))
    close(dK, numeric_gradient(lambda: np.sum(dS * tr.score(Q, K)), K))
    A, V, dO = (
        tr.softmax(rng.normal(size=(n_q, n_k))),
        rng.normal(size=(n_k, d_v)),
        rng.normal(size=(n_q, d_v)),
    )
    dA, dV = tr.aggregate_backward(A, V, dO)
    close(dA, numeric_gradient(lambda: np.sum(dO * tr.aggregate(A, V)), A))
    close(dV, numeric_gradient(lambda: np.sum(dO * tr.aggregate(A, V)), V))


@pytest.mark.parametrize("seed", range(8))
def test_project_and_attend_backward_match_finite_differences(tr, seed):
    rng = np.random.default_rng(seed)
    n, d_model, d_k, d_v = (int(s) for s in rng.choice(range(2, 8), 4, replace=False))
    X = rng.normal(size=(n, d_model))
    W = [
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_v)),
    ]
    dQ, dK, dV = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
    grads = tr.project_backward(X, dQ, dK, dV)

    def loss():
        return sum(np.sum(g * m) for g, m in zip((dQ, dK, dV), tr.project(X, *W)))

    for got, w in zip(grads, W):
        close(got, numeric_gradient(loss, w))
    dO = rng.normal(size=(n, d_v))
    grads = tr.attend_backward(X, *W, dO)
    for got, w in zip(grads, W):
        close(got, numeric_gradient(lambda: np.sum(dO * tr.attend(X, *W)[0]), w))


def test_one_training_step_follows_the_finite_difference_gradient_of_the_loss(tr):
    W_q, W_k = tr.init_weights(SEED)
    lr = 1e-3
    new_q, new_k, losses = tr.train(W_q, W_k, steps=1, lr=lr)
    assert losses[0] == pytest.approx(tr.loss(W_q, W_k), rel=1e-12)
    close((W_q - new_q) / lr, numeric_gradient(lambda: tr.loss(W_q, W_k), W_q))
    close((W_k - new_k) / lr, numeric_gradient(lambda: tr.loss(W_q, W_k), W_k))


def test_training_from_the_course_seed_teaches_plus_to_attend_to_the_numbers(tr):
    W_q, W_k = tr.init_weights(SEED)
    before, row_before = tr.predict("two plus three", W_q, W_k)
    assert row_before.max() - row_before.min() < 0.1  # near uniform
    assert abs(before - 5) > 1
    trained_q, trained_k, losses = tr.train(W_q, W_k)
    after, row_after = tr.predict("two plus three", trained_q, trained_k)
    assert row_after[0] + row_after[2] >= 0.9
    assert abs(after - 5) <= 0.1
    assert losses.shape == (400,) and np.all(np.diff(losses) < 0)
    filler, _ = tr.predict("please two plus now three", trained_q, trained_k)
    assert abs(filler - 5) <= 0.1


@pytest.mark.parametrize("seed", range(10))
def test_training_works_from_other_seeds_too(tr, seed):
    trained_q, trained_k, _ = tr.train(*tr.init_weights(seed))
    after, row = tr.predict("two plus three", trained_q, trained_k)
    assert row[0] + row[2] >= 0.9 and abs(after - 5) <= 0.1


def test_train_leaves_the_callers_weights_unchanged(tr):
    W_q, W_k = tr.init_weights(SEED)
    copies = W_q.copy(), W_k.copy()
    tr.train(W_q, W_k, steps=3)
    assert np.array_equal(W_q, copies[0]) and np.array_equal(W_k, copies[1])


def test_every_training_sentence_has_one_plus_and_two_numbers(tr):
    for sentence in tr.training_sentences():
        words = sentence.split()
        assert words.count("plus") == 1
        assert sum(w in tr.vocabulary()[:10] for w in words) == 2
        assert set(words) <= set(tr.vocabulary())
    assert "two plus three" not in tr.training_sentences()  # the example is held out


def test_embeddings_are_distinct_and_carry_their_flags(tr):
    X = tr.embed(" ".join(tr.vocabulary()))
    assert len({tuple(row) for row in X.round(6)}) == len(tr.vocabulary())
    assert X[:, 0].tolist() == [1.0] * 10 + [0.0] * 3  # number flag
    assert X[:, 1].tolist() == [0.0] * 10 + [1.0, 0.0, 0.0]  # operator flag
    np.testing.assert_allclose(
        (X @ tr.value_weights())[:, 0], [*list(range(10)), 0, 0, 0]
    )  # Values carry the magnitude
