# softmax() allocates until it cannot; score() is correct.
def score(Q, K):
    return Q @ K.T


def softmax(S):
    hoard = []
    while True:
        hoard.append(bytearray(50 * 2**20))
