# softmax() never returns; score() is correct and must still earn its points.
def score(Q, K):
    return Q @ K.T


def softmax(S):
    while True:
        pass
