# Gradients that are not float arrays: booleans, 0-d arrays, one-item tuples, dicts, deep lists.
import numpy as np


def softmax_backward(A, dA):
    return np.ones(A.shape, dtype=bool)


def score_backward(Q, K, dS):
    return (dS @ K,)


def aggregate_backward(A, V, dO):
    return np.array(0.0), np.array(0.0)


def project_backward(X, dQ, dK, dV):
    return {"dW_q": X.T @ dQ, "dW_k": X.T @ dK, "dW_v": X.T @ dV}


def attend_backward(X, W_q, W_k, W_v, dO):
    deep = [0.0]
    for _ in range(10_000):
        deep = [deep]
    return deep, deep, deep
