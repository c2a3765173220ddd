# train() returns its starting weights and a 0-d array of losses.
import numpy as np


def train(W_q, W_k, steps=400, lr=0.04):
    return W_q, W_k, np.array(1.0)
