# Prints 50 MB, writes 50 MB to the output's descriptors directly, and closes them; causal_mask is right.
import os
import sys

import numpy as np


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(lengths, n):
    print("x" * (50 << 20))
    return None


def masked_softmax(S, mask):
    chunk = b"y" * (1 << 20)
    for _ in range(50):
        os.write(1, chunk)
        os.write(2, chunk)
    return None


def split_heads(X, n_heads):
    sys.stdout.close()
    os.close(1)
    os.close(2)
    return None
