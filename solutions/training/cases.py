"""Cases for the hidden suites: random rectangular inputs, gradients by finite differences, and
what a trained model must achieve (judged here, in the trusted process, from the weights returned).
"""

from functools import lru_cache

import numpy as np

from qkv.shipped.compare import as_array, problem

from .example import EXAMPLE
from .mistakes import CATALOGUE

# Sentences that are not in training_sentences(): a trained model must read them out too.
HELD_OUT = (
    "please nine plus now zero",
    "four now plus please four",
    "three plus six please",
    "now one plus eight",
    "please five plus two now",
)
FD_RTOL, FD_ATOL = 1e-5, 1e-7  # central differences with h = 1e-6 are good to about 1e-9
ROW_SHARE = 0.9  # of "plus"'s weight on the two numbers of the example, after training
PREDICTION_TOLERANCE = 0.1  # |read-out - 5| on the example, after training
HELD_OUT_TOLERANCE = (
    0.5  # mean |read-out - sum| over the held-out sentences (the reference: about 0.2)
)
LOSS_DROP = 0.05  # the last loss must be below this fraction of the first

# ---------------------------------------------------------------------------------------------
# Finite differences: the gradient of a scalar, computed without any backward function.


def numeric_gradient(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar f(x) with respect to every entry of x (a copy is nudged)."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + h
        up = f(x)
        x[i] = old - h
        down = f(x)
        x[i] = old
        grad[i] = (up - down) / (2 * h)
    return grad


def fd_softmax_backward(ref, S, dA):
    """dS by finite differences of sum(dA * softmax(S)); S is what A was computed from."""
    return numeric_gradient(lambda s: np.sum(dA * ref.softmax(s)), S)


def fd_score_backward(ref, Q, K, dS):
    return (
        numeric_gradient(lambda q: np.sum(dS * ref.score(q, K)), Q),
        numeric_gradient(lambda k: np.sum(dS * ref.score(Q, k)), K),
    )


def fd_aggregate_backward(ref, A, V, dO):
    return (
        numeric_gradient(lambda a: np.sum(dO * ref.aggregate(a, V)), A),
        numeric_gradient(lambda v: np.sum(dO * ref.aggregate(A, v)), V),
    )


def fd_project_backward(ref, X, dQ, dK, dV, W):
    """The gradients by finite differences at the matrices W (the exact gradient does not depend on them)."""

    def loss_at(i):
        return lambda w: sum(
            np.sum(g * m) for g, m in zip((dQ, dK, dV), ref.project(X, *W[:i], w, *W[i + 1 :]))
        )

    return tuple(numeric_gradient(loss_at(i), W[i]) for i in range(3))


def fd_attend_backward(ref, X, W_q, W_k, W_v, dO):
    W = [W_q, W_k, W_v]

    def loss_at(i):
        return lambda w: np.sum(dO * ref.attend(X, *W[:i], w, *W[i + 1 :])[0])

    return tuple(numeric_gradient(loss_at(i), W[i]) for i in range(3))


# ---------------------------------------------------------------------------------------------
# Hidden random cases. Shapes are small and rectangular: every size that could be confused with
# another differs (n_q != n_k, d_k != d_v, ...). Each case also returns what finite differences need.


def _sizes(rng, k: int) -> list[int]:
    return [int(x) for x in rng.choice(np.arange(2, 8), size=k, replace=False)]


def softmax_case(rng, ref, ndim: int = 2):
    """(S, A, dA): scores, their softmax along the last axis and an upstream gradient."""
    shape = tuple(_sizes(rng, 2)) if ndim == 2 else (int(rng.integers(2, 8)),)
    S = 2.0 * rng.normal(size=shape)
    return S, ref.softmax(S), rng.normal(size=shape)


def score_case(rng):
    """(Q, K, dS) with n_q != n_k."""
    n_q, n_k, d_k = _sizes(rng, 3)
    return rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_q, n_k))


def aggregate_case(rng, ref):
    """(A, V, dO): A with rows summing to 1; n_q, n_k, d_v all different."""
    n_q, n_k, d_v = _sizes(rng, 3)
    return (
        ref.softmax(rng.normal(size=(n_q, n_k))),
        rng.normal(size=(n_k, d_v)),
        rng.normal(size=(n_q, d_v)),
    )


def project_case(rng):
    """(X, dQ, dK, dV) and matrices W to take finite differences at; n, d_model, d_k, d_v all different."""
    n, d_model, d_k, d_v = _sizes(rng, 4)
    args = (
        rng.normal(size=(n, d_model)),
        rng.normal(size=(n, d_k)),
        rng.normal(size=(n, d_k)),
        rng.normal(size=(n, d_v)),
    )
    W = [
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_v)),
    ]
    return args, W


def attend_case(rng):
    """(X, W_q, W_k, W_v, dO); n, d_model, d_k, d_v all different."""
    n, d_model, d_k, d_v = _sizes(rng, 4)
    return (
        rng.normal(size=(n, d_model)),
        0.7 * rng.normal(size=(d_model, d_k)),
        0.7 * rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_v)),
        rng.normal(size=(n, d_v)),
    )


def equal_values_case(rng):
    """An attend_backward case where every token's Value is the same: the weights cannot matter."""
    X, W_q, W_k, W_v, dO = attend_case(rng)
    X[:, 0] = 1.0  # a constant feature ...
    W_v = np.zeros_like(W_v)
    W_v[0] = rng.normal(size=W_v.shape[1])  # ... is all the Values read
    return X, W_q, W_k, W_v, dO


# ---------------------------------------------------------------------------------------------
# Checks against finite differences.


def fd_problem(value, expected, names=None) -> str | None:
    """None when the student's gradient matches the finite differences, else one sentence saying where not."""
    msg = problem(value, expected, rtol=FD_RTOL, atol=FD_ATOL, names=names, reveal=False)
    if msg is None:
        return None
    return (
        f"{msg}, compared with the gradient estimated by finite differences (nudging each input entry "
        "by ±1e-6 and watching the loss): check each product against the chain rule"
    )


# ---------------------------------------------------------------------------------------------
# What a trained model must achieve, judged in the trusted process from the weights train returned.

IN_PLACE = next(m for m in CATALOGUE if m.part == "train" and m.mutates_input)


def gradients(value, count: int) -> tuple | None:
    """The `count` gradients a backward function returned, as float arrays (arrays, or lists of numbers
    spelling them), or None when it returned something else."""
    if not isinstance(value, (tuple, list)) or len(value) != count:
        return None
    arrays = tuple(as_array(v) for v in value)
    return None if any(a is None for a in arrays) else arrays


def trained(value, shape) -> tuple | None:
    """(W_q, W_k, losses) as arrays when train returned three things that spell them (arrays, or lists
    of numbers, as the other checks accept), W_q and W_k finite and shaped like the start, and one loss
    per step: a column or a row of them, (steps, 1) as a loss kept as a 1-element array gives, is the
    same numbers."""
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        return None
    W_q, W_k, losses = (as_array(v) for v in value)
    if W_q is None or W_k is None or losses is None:
        return None
    if losses.ndim > 1 and losses.size == max(losses.shape):
        losses = losses.reshape(-1)
    if W_q.shape != shape or W_k.shape != shape or losses.ndim != 1 or losses.size == 0:
        return None
    if not (np.all(np.isfinite(W_q)) and np.all(np.isfinite(W_k))):
        return None
    return W_q, W_k, losses


def held_out_error(ref, W_q, W_k) -> float:
    """The mean |read-out - true sum| over sentences the model was not trained on."""
    return float(np.mean([abs(ref.predict(s, W_q, W_k)[0] - ref.example(s)[2]) for s in HELD_OUT]))


@lru_cache(maxsize=4)
def _wrong_trainings(ref, seed: int, functions: tuple) -> tuple:
    """(mistake, output) for every output-visible catalogued mistake of train, from the seed's weights.

    Every student trains from the same weights, so each grading process runs these once.
    """
    W_q, W_k = ref.init_weights(seed)
    out = []
    for m in CATALOGUE:
        if m.part == "train" and not m.mutates_input:
            with np.errstate(all="ignore"):
                out.append((m, m.function(ref, functions)(W_q.copy(), W_k.copy())))
    return tuple(out)


def training_mistake(ref, fx, value, functions) -> object | None:
    """The catalogued mistake of train whose output `value` reproduces, or None."""
    for mistake, wrong in _wrong_trainings(ref, fx.seed, tuple(functions)):
        if problem(value, wrong, rtol=1e-6, atol=1e-9) is None:
            return mistake
    return None


def training_summary(ref, value, shape, points: int = 500) -> dict | None:
    """What the feedback page draws of a student's training: the loss curve (at most `points` of it),
    "plus"'s row and the read-out on the example; None when there is nothing to draw."""
    got = trained(value, shape)
    if got is None:
        return None
    W_q, W_k, losses = got
    prediction, row = ref.predict(EXAMPLE, W_q, W_k)
    step = max(1, -(-losses.size // points))
    curve = [float(f"{x:.6g}") if np.isfinite(x) else None for x in losses[::step]]
    finite = lambda x: round(float(x), 4) if np.isfinite(x) else None  # noqa: E731 - weights may overflow
    return {
        "losses": curve,
        "every": step,
        "plus_row": [finite(w) for w in row],
        "prediction": finite(prediction),
    }


# ---------------------------------------------------------------------------------------------
# A training judged by its trajectory: every student starts from known weights, so the reference's
# loss at every step is known; floating-point reordering moves it by about 1e-13, a different run
# (another learning rate, W_v trained too, a step fewer) by far more than the tolerance.

OTHER_STARTS = 4  # hidden starting weights are init_weights(seed + 1 + k), k < OTHER_STARTS


def other_start(rng, ref, seed: int) -> tuple:
    """Starting weights the release does not show, drawn for one student."""
    return ref.init_weights(seed + 1 + int(rng.integers(OTHER_STARTS)))


def trajectory_problem(got, expected, *, rtol: float, atol: float) -> str | None:
    """What is wrong with a training run (W_q, W_k, losses) against the reference's, or None."""
    _, _, losses = got
    want_q, want_k, want = expected
    if losses.size != want.size:
        return (
            f"train() returned {losses.size} losses for {want.size} steps: record the mean loss "
            "once per step, before the step, for every step"
        )
    off = ~(np.abs(losses - want) <= atol + rtol * np.abs(want))
    if off.any() and np.all(np.abs(losses + want) <= atol + rtol * np.abs(want)):
        return "the losses are the reference's with their sign flipped: check the sign"
    if off.any():
        k = int(np.argmax(off))
        return (
            f"the loss differs from the reference's training from the same weights at step {k} "
            f"(yours {losses[k]:.8g}, the reference's {want[k]:.8g}): each step must use the mean "
            "gradient over all the training sentences and move only W_q and W_k (W_v and the "
            "read-out stay fixed), by the given learning rate"
        )
    for name, mine, want_w in (("W_q", got[0], want_q), ("W_k", got[1], want_k)):
        if problem(mine, want_w, rtol=rtol, atol=atol) is not None:
            return (
                f"the losses follow the reference's, but the returned {name} is not the one "
                "those steps reach: return the weights after the last step"
            )
    return None
