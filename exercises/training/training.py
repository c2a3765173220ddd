"""Backpropagation through attention: how "plus" learns what to ask.

In the first assignment W_q and W_k were given, chosen so that "plus" attends to both numbers of
"two plus three". Here they start random: "plus" asks random questions, attends to every token
about evenly, and "two plus three" reads out the wrong sum. Gradient descent fixes that. The loss
is the squared error of what "plus" reads out against the true sum; its gradient flows back through
the weighted sum, the softmax, the dot products and the projections (the chain rule, as in
micrograd or any autograd, written out by hand for one attention layer) down to W_q and W_k.

The task is a tiny arithmetic language: number words, "plus", and filler words ("please", "now")
that may stand anywhere, so spreading attention evenly cannot solve it. Each word's embedding holds
[is a number, is an operator, magnitude, three identity dimensions]. W_v is fixed and carries only
the magnitude, and the read-out is fixed (twice "plus"'s output, since the weights of a row sum to
1 and two numbers are added), so only W_q and W_k learn. Attention here is bidirectional: "plus"
sees the number after it, as an encoder's tokens do.

Shapes: n tokens, model width d_model, key width d_k, value width d_v. No function modifies its
inputs.
"""
import numpy as np

# ---------------------------------------------------------------------------------------------
# The task: given.

def vocabulary():
    """The words of the task: ten number words, the operator "plus" and two filler words."""
    numbers = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    return numbers + ("plus", "please", "now")


def embedding(word):
    """The embedding of one word: (d_model=6,) = [number, operator, magnitude, id0, id1, id2].

    The three identity dimensions put each word on its own point of a small curve, so every word
    differs from every other even where the flags and the magnitude agree.
    """
    words = vocabulary()
    i = words.index(word)
    t = 2 * np.pi * i / len(words)
    identity = 0.5 * np.array([np.cos(t), np.sin(t), np.cos(3 * t)])  # (3,)
    is_number = i < 10
    flags = [float(is_number), float(word == "plus"), i / 10 if is_number else 0.0]  # magnitude in tenths
    return np.concatenate([flags, identity])  # (6,)


def embed(sentence):
    """X (n, d_model): one embedding per word of a sentence such as "please two plus three"."""
    return np.array([embedding(w) for w in sentence.split()])  # (n, 6)


def value_weights():
    """W_v (d_model, d_v=1), fixed: a token's Value is its number's magnitude (0 for other words)."""
    return 10.0 * np.eye(6)[:, [2]]  # (6, 1)


def readout_weights():
    """(d_v,), fixed: the read-out is twice "plus"'s output, since a weighted average of two numbers,
    doubled, is their sum."""
    return np.array([2.0])  # (1,)


def training_sentences():
    """The sentences train() learns from; "two plus three" is not one of them."""
    return ("one plus four", "please seven plus two", "six plus now three", "zero plus five please",
            "now eight plus one", "three please plus nine", "four plus four now", "please nine plus now six",
            "two plus seven", "five now plus zero please", "seven plus eight", "now please one plus six")


def example(sentence):
    """(X, index of "plus", target): one sentence "a plus b" with its true sum a + b."""
    words = sentence.split()
    target = sum(vocabulary().index(w) for w in words if vocabulary().index(w) < 10)
    return embed(sentence), words.index("plus"), float(target)


def init_weights(seed):
    """Random W_q, W_k (d_model, d_k=4): before training, "plus" asks a random question."""
    rng = np.random.default_rng(seed)
    return 0.1 * rng.normal(size=(6, 4)), 0.1 * rng.normal(size=(6, 4))  # (6, 4) each


def predict(sentence, W_q, W_k):
    """The read-out for "a plus b" (a float) and "plus"'s row of attention weights (n,)."""
    X, plus, _ = example(sentence)
    O, A = attend(X, W_q, W_k, value_weights())  # (n, 1), (n, n)
    return float(O[plus] @ readout_weights()), A[plus]


def loss(W_q, W_k):
    """The mean over training_sentences() of (read-out - true sum) ** 2."""
    errors = [predict(s, W_q, W_k)[0] - example(s)[2] for s in training_sentences()]
    return float(np.mean(np.square(errors)))


# ---------------------------------------------------------------------------------------------
# The forward pass: given (the first assignment's functions).

def project(X, W_q, W_k, W_v):
    return X @ W_q, X @ W_k, X @ W_v  # (n, d_k), (n, d_k), (n, d_v)


def score(Q, K):
    return Q @ K.T  # (n_q, n_k)


def softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))  # same shape as S
    return e / e.sum(axis=-1, keepdims=True)  # rows sum to 1


def aggregate(A, V):
    return A @ V  # (n_q, d_v)


def attend(X, W_q, W_k, W_v):
    Q, K, V = project(X, W_q, W_k, W_v)  # (n, d_k), (n, d_k), (n, d_v)
    A = softmax(score(Q, K))  # (n, n)
    return aggregate(A, V), A  # (n, d_v), (n, n)


# ---------------------------------------------------------------------------------------------
# The backward pass: each function takes dL/d(its output) and returns dL/d(its inputs).

def softmax_backward(A, dA):
    """Gradient through softmax, along the last axis.

    A row's weights share one sum, so raising one score lowers every other weight of the row:
    the Jacobian is diag(a) - a a^T, and dS = A * (dA - sum(dA * A)) row by row.

    Args:
        A: (n,) or (n_q, n_k), the softmax of the scores.
        dA: same shape, dL/dA.

    Returns:
        dS: same shape, dL/dS. Each row sums to 0.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def score_backward(Q, K, dS):
    """Gradient through S = Q K^T.

    Args:
        Q: (n_q, d_k), K: (n_k, d_k), dS: (n_q, n_k) = dL/dS.

    Returns:
        Tuple (dQ, dK) of shapes (n_q, d_k), (n_k, d_k).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def aggregate_backward(A, V, dO):
    """Gradient through O = A V.

    Args:
        A: (n_q, n_k), V: (n_k, d_v), dO: (n_q, d_v) = dL/dO.

    Returns:
        Tuple (dA, dV) of shapes (n_q, n_k), (n_k, d_v).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def project_backward(X, dQ, dK, dV):
    """Gradient through Q = X W_q, K = X W_k, V = X W_v, with respect to the matrices.

    Args:
        X: (n, d_model); dQ, dK: (n, d_k); dV: (n, d_v).

    Returns:
        Tuple (dW_q, dW_k, dW_v) of shapes (d_model, d_k), (d_model, d_k), (d_model, d_v).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def attend_backward(X, W_q, W_k, W_v, dO):
    """Gradient of attend(X, W_q, W_k, W_v) with respect to the three matrices.

    Runs the forward pass again, then the backward functions above in reverse order.

    Args:
        X, W_q, W_k, W_v: as for attend().
        dO: (n, d_v), dL/dO for the outputs O of attend().

    Returns:
        Tuple (dW_q, dW_k, dW_v), shaped like W_q, W_k, W_v.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def train(W_q, W_k, steps=400, lr=0.04):
    """Gradient descent on the mean loss over training_sentences(); W_v and the read-out stay fixed.

    Each step averages the gradient over all the sentences (one batch), then moves W_q and W_k
    against it by lr times that average.

    Args:
        W_q, W_k: (d_model, d_k) the starting weights; left unchanged.
        steps: how many steps to take.
        lr: the learning rate.

    Returns:
        Tuple (W_q, W_k, losses): the trained matrices and (steps,) the mean loss before each step.
    """
    # YOUR CODE HERE
    raise NotImplementedError()
