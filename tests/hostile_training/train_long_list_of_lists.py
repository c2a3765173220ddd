# train() returns 100,000 losses, each a 1-element list, and weights as lists of lists.
import numpy as np


def train(W_q, W_k, steps=400, lr=0.04):
    return W_q.tolist(), W_k.tolist(), [[float(k)] for k in range(100_000)]
