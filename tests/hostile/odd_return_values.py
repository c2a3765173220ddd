# Returns things that are not arrays, or that break when turned into one.
class Explodes:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array for you")

    def __len__(self):
        raise RuntimeError("no length either")


def project(X, W_q, W_k, W_v):
    return {"Q": X}


def score(Q, K):
    return Explodes()


def softmax(S):
    return "weights"


def aggregate(A, V):
    return (row for row in A)


def attend(X, W_q, W_k, W_v):
    return object(), Explodes()
