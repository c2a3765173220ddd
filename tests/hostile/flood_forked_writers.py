# Forks writers that keep stdout full for ever (pipe enlarged to 1 MiB) from import on, then answers late.
import fcntl
import os
import sys
import time

F_SETPIPE_SZ = 1031
for _ in range(6):
    try:
        if os.fork() == 0:
            try:
                fcntl.fcntl(1, F_SETPIPE_SZ, 1 << 20)
            except OSError:
                pass
            while True:
                try:
                    os.write(1, b"x" * 65536)
                except OSError:
                    pass
    except OSError:
        break


def softmax(S):
    time.sleep(30)
    return S
