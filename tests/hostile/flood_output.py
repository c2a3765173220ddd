# Prints 20 MB, then returns a correct score.
import sys


def score(Q, K):
    sys.stdout.write("x" * (20 * 2**20))
    return Q @ K.T
