import numpy as np


def softmax(S)
    return np.exp(S)
