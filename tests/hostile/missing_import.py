import numpy as np
from attention_helpers import tricks  # not part of the submission


def softmax(S):
    return tricks(S)
