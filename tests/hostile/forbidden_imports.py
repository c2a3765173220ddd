# Imports the grader's own package (and a test dependency) from inside a call.
def softmax(S):
    import qkv.grade.reference as ref  # noqa: F401
    return S


def score(Q, K):
    import nbgrader  # noqa: F401
    return Q @ K.T
